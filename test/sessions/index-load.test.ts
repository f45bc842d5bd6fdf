import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { UNBUDGETED_USAGE_REPORT_INTERVAL_MS } from "../../src/sessions/object/report/report-policy";
import { TenantIndex } from "../../src/tenants/tenant-index";
import { POLICY_FRESH_MS } from "../../src/sessions/object/loop/tool-policy";
import { createAndStart, newTestSession, waitForStatus } from "../support/agent-session";

const toolUse = (id: string) => ({ type: "tool_use", id, name: "get_time", input: {} });
const text = (t: string) => ({ type: "text", text: t });

/** Counts every RPC method of the tenant index called from now on (the objects share this isolate). */
function countIndexCalls(): () => number {
  const spies = Object.getOwnPropertyNames(TenantIndex.prototype)
    .filter((name) => name !== "constructor")
    .map((name) => vi.spyOn(TenantIndex.prototype, name as keyof TenantIndex));
  return () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
}

afterEach(() => vi.restoreAllMocks());

describe("load on the tenant index", () => {
  it("hears of a run's status changes, not of every step's usage", async () => {
    const t = newTestSession();
    const steps = 40;
    const replies = Array.from({ length: steps - 1 }, (_, i) => ({ reply: { content: [toolUse(`toolu_${i}`)] } }));
    await t.model.script(...replies, { reply: { content: [text("done")] } });
    const calls = countIndexCalls();
    const started = Date.now();
    await createAndStart(t, "go", { tools: [{ type: "builtin", name: "get_time" }], limits: { max_steps_per_run: steps } });
    const done = await waitForStatus(t, ["done"], 30_000);
    expect(done.usage.steps).toBe(steps);
    const elapsed = Date.now() - started;
    // Reports: the start, the end, and one per interval of usage while it ran (no daily budget
    // counts this session); and one read of the tenant's tool policy per interval its copy is
    // kept, none in the first (src/sessions/object/loop/tool-policy.ts).
    const allowed = 2 + Math.ceil(elapsed / UNBUDGETED_USAGE_REPORT_INTERVAL_MS) + Math.floor(elapsed / POLICY_FRESH_MS);
    expect(calls()).toBeGreaterThanOrEqual(2); // the start and the end were heard: the count works
    expect(calls()).toBeLessThanOrEqual(allowed);
  });
});

describe("the tenant's tool policy, as a run's tool steps read it", () => {
  it("is never asked by a run's tool steps when the tenant has none: the admission's answer named its version", async () => {
    const t = newTestSession();
    const steps = 8;
    // Each step takes most of a second: the run outlasts the 5 s an isolate's copy was kept before the policy was pushed.
    const replies = Array.from({ length: steps - 1 }, (_, i) => ({ delay_ms: 900, reply: { content: [toolUse(`toolu_${i}`)] } }));
    await t.model.script(...replies, { reply: { content: [text("done")] } });
    const policyReads = vi.spyOn(TenantIndex.prototype, "currentPolicy");
    const started = Date.now();
    await createAndStart(t, "go", { tools: [{ type: "builtin", name: "get_time" }], limits: { max_steps_per_run: steps } });
    const done = await waitForStatus(t, ["done"], 60_000);
    expect(done.usage.steps).toBe(steps);
    // A copy nothing confirmed for POLICY_FRESH_MS is asked for again; this run is shorter.
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThan(5_000);
    expect(elapsed).toBeLessThan(POLICY_FRESH_MS);
    expect(policyReads.mock.calls.filter(([tenant]) => tenant === t.tenantId)).toHaveLength(0);
  });

  it("is read once when the tenant has one", async () => {
    const t = newTestSession();
    await tenantIndexStub(env, t.tenantId).putPolicy(
      t.tenantId,
      '@id("no-time") forbid(principal, action, resource == Tool::"get_time");',
      1,
    );
    await t.model.script({ reply: { content: [toolUse("toolu_0")] } }, { reply: { content: [text("done")] } });
    const policyReads = vi.spyOn(TenantIndex.prototype, "currentPolicy");
    await createAndStart(t, "go", { tools: [{ type: "builtin", name: "get_time" }] });
    expect((await waitForStatus(t, ["done"], 30_000)).status).toBe("done");
    expect(policyReads.mock.calls.filter(([tenant]) => tenant === t.tenantId)).toHaveLength(1);
  });
});
