/**
 * A tenant's deletion in the platform's audit log: the platform admin who asked is named once,
 * when the deletion begins; asking again while it runs (or after it finished) records nothing, and
 * the entry is still read by the tenant's id once nothing else of the tenant is left.
 */
import { describe, expect, it } from "vitest";
import { call } from "../../support/api";
import { uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { caller, createSession } from "../sessions/helpers";
import { actionsOf, auditPage } from "./helpers";

// Several deletion passes (25 sessions each), so a second request finds the deletion still running.
const IDLE_SESSIONS = 60;

interface Deletion {
  status: string;
  sessions_left: number;
  finished_at: string | null;
}

describe("the platform audit log of a tenant's deletion", () => {
  it("records tenant.deleted once, naming the platform admin, and nothing when the deletion is asked again", async () => {
    const tenantId = freshTenant("audit-deleted");
    const subject = uniqueKey("operator");
    const ops = await bearer({ tenantId: freshTenant("audit-deleted-ops"), subject, scopes: ["platform:admin"] });
    const owner = await caller(tenantId, ["sessions:read", "sessions:write"], "owner");
    await Promise.all(Array.from({ length: IDLE_SESSIONS }, () => createSession(owner)));

    const first = await call(`/v1/admin/tenants/${tenantId}`, { method: "DELETE", headers: ops });
    expect(first.status).toBe(202);
    expect(((await first.json()) as { deletion: Deletion }).deletion).toMatchObject({ status: "deleting", finished_at: null });
    const again = await call(`/v1/admin/tenants/${tenantId}`, { method: "DELETE", headers: ops });
    expect(again.status).toBe(202);
    const progress = ((await again.json()) as { deletion: Deletion }).deletion;
    expect(progress).toMatchObject({ status: "deleting", finished_at: null, sessions_left: expect.any(Number) });
    expect(progress.sessions_left).toBeGreaterThan(0);

    const deleted = (await auditPage(`/v1/admin/audit-log?tenant_id=${tenantId}&action=tenant.deleted`, ops)).data;
    expect(deleted).toEqual([
      {
        id: expect.stringMatching(/^aud_/),
        at: expect.any(String),
        tenant_id: tenantId,
        actor: { sub: subject, via: "jwt", key_id: null },
        action: "tenant.deleted",
        target: { type: "tenant", id: tenantId },
        request_id: expect.any(String),
        client_request_id: null,
        client_ip: null,
        details: { started_at: expect.any(String) },
      },
    ]);
    // The platform's log of every tenant holds the same one entry.
    const platform = await auditPage(`/v1/admin/audit-log?actor=${subject}`, ops);
    expect(platform.data.filter((entry) => entry.action === "tenant.deleted").map((entry) => entry.id)).toEqual([deleted[0]!.id]);

    // Once finished, a third request still adds nothing.
    const deadline = Date.now() + 15_000;
    let status = progress.status;
    while (status !== "deleted") {
      if (Date.now() > deadline) throw new Error(`tenant ${tenantId} was not deleted in time`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const res = await call(`/v1/admin/tenants/${tenantId}`, { method: "DELETE", headers: ops });
      expect(res.status).toBe(202);
      status = ((await res.json()) as { deletion: Deletion }).deletion.status;
    }
    const after = await auditPage(`/v1/admin/audit-log?actor=${subject}`, ops);
    expect(actionsOf(after.data).filter((action) => action === "tenant.deleted")).toEqual(["tenant.deleted"]);
    expect(after.data.find((entry) => entry.action === "tenant.deleted")!.id).toBe(deleted[0]!.id);
    // The tenant's own log went with it; its platform actions stay, read by its id.
    const kept = (await auditPage(`/v1/admin/audit-log?tenant_id=${tenantId}`, ops)).data;
    expect(kept.filter((entry) => entry.action === "tenant.deleted").map((entry) => entry.id)).toEqual([deleted[0]!.id]);
    // The suspension that came with it is a platform action too; nothing of the tenant's own is left.
    expect(actionsOf(kept).sort()).toEqual(["tenant.deleted", "tenant.suspended"]);
  });
});
