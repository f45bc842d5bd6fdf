/**
 * The audit log across a kill -9: a burst of administrative changes (agents in the agent store,
 * whose entries go through its outbox; API keys in the tenant index) is cut by a SIGKILL of the
 * platform. After the restart, every change that was made has exactly one entry once the
 * objects' alarms have handed over what they owed, and no entry names a change not made.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantAuditLog } from "../../sdk/src/audit.ts";
import type { AuditEntry } from "../../sdk/src/types.ts";
import { type Stack, startStack, uniqueName } from "./support/stack";

const CHANGES = 24;
/** The alarms hand over owed entries within a few seconds of the restart; this is far above. */
const SETTLE_MS = 20_000;

describe("audit log across a kill -9", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("keeps exactly one entry for every change made, and none for a change not made", async () => {
    const tenantId = uniqueName("audit");
    const admin = await stack.client(tenantId, "admin-1", ["tenant:admin"]);
    const answered: string[] = [];
    const burst = Array.from({ length: CHANGES }, (_, i) => {
      const change =
        i % 2 === 0
          ? admin.request("POST", "/v1/agents", { name: `agent-${i}` })
          : admin.request("POST", "/v1/api-keys", { name: `key-${i}`, scopes: ["sessions:read"] });
      return change.then(
        (res) => void answered.push(String(res.status)),
        () => void answered.push("cut"),
      );
    });
    // Killed once a few changes have answered: the rest are in flight, some between commit and hand-over.
    const deadline = Date.now() + 10_000;
    while (answered.length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    await stack.platform.restart("SIGKILL");
    await Promise.all(burst);

    const agents = async () =>
      (await admin.expect<{ data: { id: string }[] }>(200, "GET", "/v1/agents?limit=200")).data.map((a) => a.id).sort();
    const keys = async () =>
      (await admin.expect<{ data: { key_id: string }[] }>(200, "GET", "/v1/api-keys?limit=200")).data.map((k) => k.key_id).sort();
    const log = async () => {
      const entries: AuditEntry[] = [];
      for await (const entry of tenantAuditLog(admin.sdk())) entries.push(entry);
      return entries;
    };
    const targets = (entries: AuditEntry[], action: string) =>
      entries
        .filter((e) => e.action === action)
        .map((e) => e.target.id)
        .sort();
    const same = (a: string[], b: string[]) => JSON.stringify(a) === JSON.stringify(b);

    let entries: AuditEntry[] = [];
    const settleBy = Date.now() + SETTLE_MS;
    for (;;) {
      entries = await log();
      if (
        (same(targets(entries, "agent.created"), await agents()) && same(targets(entries, "api_key.created"), await keys())) ||
        Date.now() > settleBy
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const [made, madeKeys] = [await agents(), await keys()];
    expect(made.length + madeKeys.length, `answers: ${answered.join(",")}`).toBeGreaterThan(0);
    expect(targets(entries, "agent.created"), stack.logs()).toEqual(made);
    expect(targets(entries, "api_key.created")).toEqual(madeKeys);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    for (const entry of entries) expect(entry).toMatchObject({ tenant_id: tenantId, actor: { sub: "admin-1", via: "jwt" } });
  }, 90_000);
});
