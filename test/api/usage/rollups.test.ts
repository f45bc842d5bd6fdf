import { describe, expect, it } from "vitest";
import { utcDay } from "../../../src/shared/validate";
import { call, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant, bearer } from "../../support/tokens";
import { createAgent } from "../agents/helpers";
import { agentOn, agentTool, childrenOf, PROVIDERS } from "../subagents/helpers";
import { type Caller, caller, createSession, getJson, post, waitForStatus } from "../sessions/helpers";
import type { Session } from "../../../src/session-config/types";
import { admin, answer, GET_TIME, keyCaller, toolLoop, type UsageRow, usageOf, usageWhen } from "./helpers";

const DIMENSIONS = ["day", "model", "api_key", "created_by", "agent"] as const;
const KEY_OF = { day: "day", model: "model", api_key: "api_key_id", created_by: "created_by", agent: "agent_id" } as const;
/** `priced-*` in the test environment's MODEL_PRICES, USD per million tokens. */
const PRICE = { input: 1000, output: 2000, cache_read: 100, cache_write: 1250 };

interface Spent {
  dims: Record<(typeof KEY_OF)[(typeof DIMENSIONS)[number]], string | null>;
  priced: boolean;
  runs: number;
  usage: Session["usage"];
}

function subsets<T>(items: readonly T[]): T[][] {
  return items.reduce<T[][]>((all, item) => all.concat(all.map((set) => [...set, item])), [[]]);
}

/** What the rollup must say for `groupBy`, computed from the sessions' own usage. */
function expected(spent: readonly Spent[], groupBy: readonly (typeof DIMENSIONS)[number][]): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  for (const s of spent) {
    const dims = Object.fromEntries(groupBy.map((name) => [KEY_OF[name], s.dims[KEY_OF[name]]]));
    const key = JSON.stringify(groupBy.map((name) => s.dims[KEY_OF[name]]));
    const u = s.usage;
    const cost = s.priced
      ? (u.input_tokens * PRICE.input +
          u.output_tokens * PRICE.output +
          u.cache_read_tokens * PRICE.cache_read +
          u.cache_write_tokens * PRICE.cache_write) /
        1e6
      : null;
    const row = rows.get(key) ?? {
      ...dims,
      runs: 0,
      steps: 0,
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: 0,
    };
    row.runs += s.runs;
    row.steps += u.steps;
    row.input_tokens += u.input_tokens;
    row.output_tokens += u.output_tokens;
    row.cache_read_tokens += u.cache_read_tokens;
    row.cache_write_tokens += u.cache_write_tokens;
    row.cost_usd = row.cost_usd === null || cost === null ? null : Math.round((row.cost_usd + cost) * 1e6) / 1e6;
    rows.set(key, row);
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

describe("GET /v1/tenant/usage", () => {
  it("matches the sum of the sessions' own usage for every grouping, a retried model call counted once", async () => {
    const tenantId = freshTenant();
    const boss = await admin(tenantId);
    const alice = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const key = await keyCaller(boss);
    const priced = mockModel(uniqueKey("priced"));
    const plain = mockModel(uniqueKey("plain"));
    const agent = await createAgent(boss, { name: "helper", model: plain.key });
    // A failed call costs nothing: the 500 is tried again, and only the answer is counted.
    await priced.script(
      { status: 500, body: { type: "error", error: { type: "api_error", message: "boom" } } },
      answer({ input_tokens: 10, output_tokens: 5 }),
    );
    const s1 = await createSession(alice, { input: "one", model: priced.key });
    await waitForStatus(alice, s1.id, ["done"]);
    await priced.script(answer({ input_tokens: 1, output_tokens: 1 }));
    expect((await post(alice, `/v1/sessions/${s1.id}/messages`, { input: "again" })).status).toBe(202);
    await waitForStatus(alice, s1.id, ["done"]);
    await plain.script(answer({ input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 4 }));
    const s2 = await createSession(alice, { input: "two", model: plain.key });
    await priced.script(
      toolLoop("toolu_u1", { input_tokens: 10, output_tokens: 5 }),
      answer({ input_tokens: 20, output_tokens: 8, cache_creation_input_tokens: 6 }),
    );
    const s3 = await createSession(key, { input: "three", model: priced.key, tools: GET_TIME });
    await plain.script(answer({ input_tokens: 5, output_tokens: 5 }));
    const s4 = await createSession(boss, { input: "four", agent: agent.id });
    const day = utcDay(Date.now());
    const who = [
      { caller: alice, id: s1.id, model: priced.key, key: null, agent: null, runs: 2 },
      { caller: alice, id: s2.id, model: plain.key, key: null, agent: null, runs: 1 },
      { caller: key, id: s3.id, model: priced.key, key: key.keyId, agent: null, runs: 1 },
      { caller: boss, id: s4.id, model: plain.key, key: null, agent: agent.id, runs: 1 },
    ];
    const spent: Spent[] = [];
    for (const s of who) {
      const session = await waitForStatus(s.caller, s.id, ["done"]);
      spent.push({
        dims: { day, model: `anthropic:${s.model}`, api_key_id: s.key, created_by: s.caller.subject, agent_id: s.agent },
        priced: s.model === priced.key,
        runs: s.runs,
        usage: session.usage,
      });
    }
    expect(spent[0]!.usage).toMatchObject({ steps: 2, input_tokens: 11, output_tokens: 6 });
    expect(spent[2]!.usage).toMatchObject({ steps: 2, input_tokens: 30, output_tokens: 13, cache_write_tokens: 6 });
    const all = expected(spent, [])[0]!;
    await usageWhen(boss, (report) => report.totals.steps === all.steps && report.totals.runs === all.runs, "group_by=");
    for (const groupBy of subsets(DIMENSIONS)) {
      const report = await usageOf(boss, `group_by=${groupBy.join(",")}`);
      expect(report.data, groupBy.join(",")).toEqual(groupBy.length === 0 ? [all] : expected(spent, groupBy));
      expect(report.totals).toEqual(all);
    }
    // Priced at MODEL_PRICES: (11×1000 + 6×2000)/1e6 for the first session alone.
    const byModel = await usageOf(boss, "group_by=model");
    expect(byModel.data.find((row) => row.model === `anthropic:${priced.key}`)?.cost_usd).toBeCloseTo(
      0.023 + (30 * 1000 + 13 * 2000 + 6 * 1250) / 1e6,
      6,
    );
    expect(byModel.data.find((row) => row.model === `anthropic:${plain.key}`)?.cost_usd).toBeNull();
    expect(byModel.totals.cost_usd).toBeNull();
    // The admin view of the same tenant says the same, grouped by tenant too.
    const platform = {
      tenantId,
      subject: "ops",
      headers: await bearer({ tenantId: freshTenant("ops"), scopes: ["platform:admin"], subject: "ops" }),
    } as Caller;
    const overall = await getJson<{ data: UsageRow[] }>(platform, `/v1/admin/usage?tenant_id=${tenantId}&group_by=tenant,model`);
    expect(overall.data.map(({ tenant_id: t, ...rest }) => [t, rest])).toEqual(byModel.data.map((row) => [tenantId, row]));
  });

  it("counts a sub-agent under its own session, agent and model, and its parent's API key; the parent's row holds only its own calls", async () => {
    const tenantId = freshTenant();
    const boss = await admin(tenantId);
    const key = await keyCaller(boss, { scopes: ["sessions:read", "sessions:write", "agents:write"] });
    const clerk = await agentOn(boss, PROVIDERS[0]);
    await clerk.model.script(answer({ input_tokens: 30, output_tokens: 9 }));
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      {
        reply: {
          content: [{ type: "tool_use", id: "call_clerk", name: "clerk", input: { input: "help" } }],
          usage: { input_tokens: 10, output_tokens: 5 },
        },
      },
      answer({ input_tokens: 12, output_tokens: 4 }),
    );
    const parent = await createSession(key, { input: "ask the clerk", model: parentModel.key, tools: [agentTool("clerk", clerk.id)] });
    const done = await waitForStatus(key, parent.id, ["done"], 10_000);
    const [child] = await childrenOf(key, parent.id);
    const childDone = await waitForStatus(key, child!.id, ["done"]);
    expect(done.usage.subagents).toMatchObject({ steps: 1, input_tokens: 30, output_tokens: 9 });
    const report = await usageWhen(boss, (r) => r.totals.steps === 3, "group_by=agent,model,api_key");
    const row = (u: Session["usage"]) => ({
      runs: 1,
      steps: u.steps,
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: null,
    });
    expect(report.data).toEqual(
      [
        { agent_id: clerk.id, model: `anthropic:${clerk.model.key}`, api_key_id: key.keyId, ...row(childDone.usage) },
        { agent_id: null, model: `anthropic:${parentModel.key}`, api_key_id: key.keyId, ...row(done.usage) },
      ].sort((a, b) => (JSON.stringify([a.agent_id]) < JSON.stringify([b.agent_id]) ? -1 : 1)),
    );
    expect(done.usage).toMatchObject({ steps: 2, input_tokens: 22, output_tokens: 9 });
  });

  it("answers 400 for from after to, a range over 400 days, an unknown dimension, and tenant outside the admin view", async () => {
    const boss = await admin(freshTenant());
    for (const query of [
      "from=2026-02-02&to=2026-02-01",
      "from=2025-01-01&to=2026-02-05",
      "group_by=day,colour",
      "group_by=tenant",
      "group_by=day,day",
      "from=2026-02-30",
      "to=yesterday",
    ]) {
      const res = await call(`/v1/tenant/usage?${query}`, { headers: boss.headers });
      expect(res.status, query).toBe(400);
      expect((await readProblem(res)).type).toMatch(/validation_failed/);
    }
    expect((await usageOf(boss, "from=2025-01-01&to=2026-02-04")).data).toEqual([]);
  });

  it("answers 400 naming the parameter for days no calendar has, on the tenant's and the platform's report", async () => {
    const boss = await admin(freshTenant());
    const ops = await bearer({ tenantId: freshTenant("ops"), scopes: ["platform:admin"], subject: "ops" });
    const cases: [string, string][] = [
      ["from=2026-13-01", "query.from"],
      ["from=0000-00-00", "query.from"],
      ["to=2026-00-10", "query.to"],
      ["to=2025-02-29", "query.to"],
      // A valid day whose default range would start before year 0.
      ["to=0000-01-01", "query.to"],
    ];
    for (const [query, path] of cases) {
      for (const [route, headers] of [
        ["/v1/tenant/usage", boss.headers],
        ["/v1/admin/usage", ops],
      ] as const) {
        const res = await call(`${route}?${query}`, { headers });
        expect(res.status, `${route}?${query}`).toBe(400);
        expect(
          (await readProblem(res)).errors?.map((error) => error.path),
          `${route}?${query}`,
        ).toEqual([path]);
      }
    }
  });

  it("is for tenant admins only", async () => {
    const alice = await caller(freshTenant(), ["sessions:read", "sessions:write"], "alice");
    expect((await call("/v1/tenant/usage", { headers: alice.headers })).status).toBe(403);
  });
});
