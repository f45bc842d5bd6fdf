/**
 * A sharded tenant's counts through a crash: `wrangler dev` is killed (SIGKILL) while its sessions
 * start, run and report on four shards, and started again on the same storage. Every session
 * ends, the listing holds each once, the tenant's usage equals the sum of its sessions' own, its
 * daily token budget counts that sum exactly with no reservation left held, and no run slot is left
 * lent: the tenant can fill its limit again, and no more.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session, SessionSummary } from "../../src/session-config/types";
import type { ApiClient } from "./support/api-client";
import { mapLimit } from "./support/pool";
import { callTools, say, waitForFinal } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";

const SESSIONS = 24;
const MAX_RUNS = 6;
const STEP_TIMEOUT_MS = 60_000;

async function listAll(client: ApiClient): Promise<SessionSummary[]> {
  const all: SessionSummary[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: SessionSummary[]; next_cursor: string | null } = await client.expect(
      200,
      "GET",
      `/v1/sessions?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

describe("a sharded tenant killed mid-report", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("ends every session, keeps each listed once with its usage counted once, and lends no slot it does not get back", async () => {
    const tenant = uniqueName("tenant");
    const admin = await stack.client(uniqueName("ops"), "ops-1", ["platform:admin"]);
    await admin.expect(200, "PUT", `/v1/admin/tenants/${tenant}/shards`, { shards: 4 });
    // A daily budget far above the runs: each run's start is judged and reserved on the index, and its spending sent there.
    const limits = { max_concurrent_runs: MAX_RUNS, max_tokens_per_day: 100_000_000 };
    await admin.expect(200, "PUT", `/v1/admin/tenants/${tenant}/limits`, limits);
    const client = await stack.client(tenant);

    // Idle sessions first, told to run in a burst: more runs than slots, so reports, queueing and leases cross the crash.
    const ids = await mapLimit(
      Array.from({ length: SESSIONS }, (_, i) => i),
      8,
      async (i) => {
        const model = stack.mock.model(uniqueName("model"));
        await model.script(callTools([[`toolu_${i}`, "get_time"]], 150), say(`answer ${i}`, 150));
        const session = await client.createSession({ model: model.key, tools: [{ type: "builtin", name: "get_time" }] });
        return session.id;
      },
    );
    const started = new Set<string>();
    const startAll = async () => {
      await mapLimit(
        ids.filter((id) => !started.has(id)),
        8,
        async (id) => {
          const res = await client.request("POST", `/v1/sessions/${id}/messages`, { input: "what time is it?" });
          if (res.status < 300) started.add(id);
        },
      );
    };
    await startAll();
    // Killed while runs go: some ended (reported), some mid-run, some refused for want of a slot.
    await stack.platform.restart("SIGKILL");
    const deadline = Date.now() + 2 * STEP_TIMEOUT_MS;
    while (started.size < ids.length && Date.now() < deadline) {
      await startAll();
      if (started.size < ids.length) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(started.size, stack.logs()).toBe(ids.length);

    const finals: Session[] = [];
    for (const id of ids) finals.push(await waitForFinal(client, id, STEP_TIMEOUT_MS));
    expect(finals.map((s) => s.status)).toEqual(ids.map(() => "done"));

    const listed = await listAll(client);
    expect(listed.map((s) => s.id).sort()).toEqual([...ids].sort());
    const tenantView: { usage: { input_tokens: number; output_tokens: number; steps: number; sessions_created: number } } =
      await client.expect(200, "GET", "/v1/tenant");
    const sum = (pick: (s: Session) => number) => finals.reduce((total, s) => total + pick(s), 0);
    expect(tenantView.usage).toMatchObject({
      sessions_created: SESSIONS,
      steps: sum((s) => s.usage.steps),
      input_tokens: sum((s) => s.usage.input_tokens),
      output_tokens: sum((s) => s.usage.output_tokens),
    });

    // The budget counts every shard's spending once, and holds no run's reservation past its end:
    // at the sessions' sum a start is refused; one token above it a start is admitted.
    const hang = stack.mock.model(uniqueName("model"));
    await hang.script(...Array.from({ length: MAX_RUNS + 40 }, () => say("never", 120_000)));
    const spent = sum((s) => s.usage.input_tokens + s.usage.output_tokens);
    const startUnder = async (budget: number, admitted: boolean) => {
      await admin.expect(200, "PUT", `/v1/admin/tenants/${tenant}/limits`, { ...limits, max_tokens_per_day: budget });
      const until = Date.now() + 20_000;
      for (let tries = 0; ; tries++) {
        const res = await client.request<{ id?: string }>("POST", "/v1/sessions", { input: "count", model: hang.key });
        if (res.body?.id) await client.cancel(res.body.id);
        if ((res.status === 201) === admitted || Date.now() > until || tries >= 19) return res;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    const atSum = await startUnder(spent, false);
    expect(atSum.status, atSum.text).toBe(429);
    expect(atSum.text).toMatch(/daily token budget is used up/);
    expect((await startUnder(spent + 1, true)).status, stack.logs()).toBe(201);
    await admin.expect(200, "PUT", `/v1/admin/tenants/${tenant}/limits`, limits);

    // Every slot came back: the limit fills again, and the next run is refused.
    const hanging: string[] = [];
    for (let i = 0; i < MAX_RUNS; i++) hanging.push((await client.createSession({ input: "hold", model: hang.key })).id);
    const refused = await client.request("POST", "/v1/sessions", { input: "one too many", model: hang.key });
    expect(refused.status).toBe(429);
    await mapLimit(hanging, 8, (id) => client.cancel(id));
  });
});
