/**
 * Evals against a real `wrangler dev`, driven with the SDK's `evals.run`: a 3-item eval with two
 * scorers gives the expected means, comparing a good and a bad version lists the regressed items,
 * and an eval's sessions wait for the tenant's run slot and count in its usage like any other.
 */
import { type Eval, evals, expectData } from "@agent-platform/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { say } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { waitFor } from "./support/wait";

const AUTHOR = ["sessions:read", "sessions:write", "agents:write"] as const;
const ITEMS = [
  { input: "Capital of France?", expected: "Paris" },
  { input: "Capital of Japan?", expected: "Tokyo" },
  { input: "Capital of Italy?", expected: "Rome" },
];
const SCORERS = [{ type: "contains" as const }, { type: "max_steps" as const, max: 1 }];
const RUN = { timeoutMs: 90_000, intervalMs: 250 };

describe("evals", () => {
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("gives the expected means over three items, and lists what a bad version regressed", async () => {
    const author = await stack.client(uniqueName("evals"), "e2e-author", [...AUTHOR]);
    const sdk = author.sdk();
    const good = stack.mock.model(uniqueName("good"));
    const bad = stack.mock.model(uniqueName("bad"));
    // One item at a time, so each takes its scripted answer in order.
    await good.script(say("Paris."), say("Tokyo."), say("Rome."));
    await bad.script(say("Paris."), say("Kyoto."), say("Rome."));
    const agent = await author.expect<{ id: string }>(201, "POST", "/v1/agents", { name: "geo", model: good.key });
    await author.expect(200, "PATCH", `/v1/agents/${agent.id}`, { model: bad.key });
    const dataset = await author.expect<{ id: string }>(201, "POST", "/v1/datasets", { name: "capitals", items: ITEMS });

    const seen: number[] = [];
    const onProgress = (progress: Eval["progress"]) => void seen.push(progress.finished);
    const a = await evals.run(
      sdk,
      { agent: `${agent.id}@1`, dataset_id: dataset.id, scorers: SCORERS, concurrency: 1 },
      { ...RUN, onProgress },
    );
    expect(a.status).toBe("completed");
    expect(a.scores).toEqual({ contains: 1, max_steps: 1 });
    expect(seen.at(-1)).toBe(3);
    const b = await evals.run(sdk, { agent: `${agent.id}@2`, dataset_id: dataset.id, scorers: SCORERS, concurrency: 1 }, RUN);
    expect(b.scores).toEqual({ contains: 0.666667, max_steps: 1 });
    expect(b.items[1]?.scores.contains).toEqual({ score: 0, reason: 'The answer does not contain "Tokyo".' });

    const comparison = await evals.compare(sdk, a.id, b.id);
    expect(comparison.regressions).toEqual([1]);
    expect(comparison.improvements).toEqual([]);
  });

  it("runs its sessions on the tenant's run slots, and counts them in the tenant's usage", async () => {
    const tenantId = uniqueName("eval-slots");
    const ops = await stack.client("platform", "e2e-ops", ["platform:admin"]);
    await ops.expect(200, "PUT", `/v1/admin/tenants/${tenantId}/limits`, { max_concurrent_runs: 1 });
    const author = await stack.client(tenantId, "e2e-author", [...AUTHOR]);
    const model = stack.mock.model(uniqueName("model"));
    await model.script({ hang: true }, say("Paris."), say("Tokyo."), say("Rome."));
    const blocker = await author.createSession({ model: model.key, input: "hold the slot" });
    await waitFor(async () => ((await model.requests()).length === 1 ? true : undefined), {
      timeoutMs: 30_000,
      what: "the blocker's model call",
    });

    const agent = await author.expect<{ id: string }>(201, "POST", "/v1/agents", { name: "slotted", model: model.key });
    const dataset = await author.expect<{ id: string }>(201, "POST", "/v1/datasets", { name: "capitals", items: ITEMS });
    const body = { agent: agent.id, dataset_id: dataset.id, scorers: SCORERS };
    const tooMany = await author.request("POST", "/v1/evals", { ...body, concurrency: 2 });
    expect(tooMany.status).toBe(400);
    const started = await author.expect<Eval>(202, "POST", "/v1/evals", body);
    expect(started.concurrency).toBe(1);

    // The blocker holds the tenant's one slot: watched over a few of the eval's steps (one a second), no item starts.
    for (let read = 0; read < 10; read++) {
      const waiting = await author.expect<Eval>(200, "GET", `/v1/evals/${started.id}`);
      expect(waiting.progress).toMatchObject({ pending: 3, running: 0 });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await author.expect(200, "POST", `/v1/sessions/${blocker.id}/cancel`);
    const freed = Date.parse((await author.getSession(blocker.id)).updated_at);

    const done = await evals.wait(author.sdk(), started.id, RUN);
    expect(done.scores).toEqual({ contains: 1, max_steps: 1 });
    // Every item's session was created once the slot was free, not before.
    for (const item of done.items)
      expect(Date.parse((await author.getSession(item.session_id!)).created_at)).toBeGreaterThanOrEqual(freed - 1_000);
    const admin = await stack.client(tenantId, "e2e-admin", ["tenant:admin"]);
    await waitFor(
      async () => {
        const usage = await expectData(admin.sdk().GET("/v1/tenant/usage", { params: { query: { group_by: "model" } } }));
        return usage.totals.runs === 4 ? true : undefined;
      },
      { timeoutMs: 30_000, what: "the eval's three runs and the blocker's in the tenant's usage" },
    );
  });
});
