/**
 * The tenant index's deletion calls: the deletion begun (suspension, audit entry, the registry's
 * record, the alarm that drives it), its progress, and the alarm's pass (../tenant-deletion.ts).
 */
import type { AuditContext } from "../../audit/types";
import { describeError, log } from "../../log";
import { tenantRegistryStub } from "../../objects";
import { purgeStorage } from "../../storage/object-storage";
import { recordLifecycle } from "../lifecycle-record";
import * as deletion from "../tenant-deletion";
import { requireNow } from "../../shared/validate";
import { counts } from "./across-shards";
import { suspend } from "./config";
import type { IndexCore } from "./core";
import type { IndexHost } from "./host";

export type DeletionHost = Pick<IndexCore, "ctx" | "env" | "sql" | "alarms" | "platformAudit" | "forgetTenant">;

export async function deleteTenant(
  core: DeletionHost,
  host: IndexHost,
  tenantId: string,
  now: number,
  actor?: AuditContext,
): Promise<deletion.DeletionProgress> {
  const at = requireNow(now);
  const started = deletion.readDeletion(host.kv) === null;
  // The state, its audit entry (copied to the platform's log, which outlives this object) and the
  // alarm that drives the deletion commit together; each alarm hands the entry over before a pass.
  const state = host.transaction(() => {
    const begun = deletion.startDeletion(host.kv, at);
    if (started)
      host.audit(actor, {
        action: "tenant.deleted",
        target: { type: "tenant", id: tenantId },
        details: { started_at: new Date(begun.started_at).toISOString() },
      });
    return begun;
  });
  // Asked again, the deletion's alarm is set again too: a lost one never stops it for good.
  await core.alarms.wakeWithWrite();
  if (started) {
    // Listed as deleting at once; the last pass records it again, so a failure here loses nothing.
    await tenantRegistryStub(core.env)
      .beginDeletion(tenantId, state.started_at)
      .catch((error: unknown) => log("warn", "tenant_deletion_unrecorded", { tenant_id: tenantId, error: describeError(error) }));
    await suspend(host, tenantId, actor);
    await core.platformAudit.flush();
  }
  return deletion.deletingProgress(state, await sessionsLeft(host, tenantId));
}

/** The sessions still to erase: the index's own and every shard's (the index's alone when a shard cannot be asked). */
async function sessionsLeft(host: IndexHost, tenantId: string): Promise<number> {
  try {
    return Object.values(await counts(host, tenantId)).reduce((sum, n) => sum + n, 0);
  } catch (error) {
    log("warn", "tenant_deletion_shards_uncounted", { tenant_id: tenantId, error: describeError(error) });
    return deletion.sessionsLeft(host.sql);
  }
}

/** Null: no tenant was entered here, or none is being deleted. */
export async function deletionProgress(host: IndexHost | null, tenantId: string): Promise<deletion.DeletionProgress | null> {
  const state = host ? deletion.readDeletion(host.kv) : null;
  return host && state ? deletion.deletingProgress(state, await sessionsLeft(host, tenantId)) : null;
}

/**
 * One bounded pass of the tenant's deletion, then the next one at once; the last empties this
 * object. A failed pass is logged and tried again shortly, however often it fails.
 */
export async function deletionPass(core: DeletionHost, tenantId: string, state: deletion.DeletionState): Promise<void> {
  try {
    if ((await deletion.deletionPass(core.env, core.ctx.storage.kv, core.sql, tenantId, state)) === "more") {
      await core.alarms.sync(Date.now());
      return;
    }
    const finishedAt = Date.now();
    await tenantRegistryStub(core.env).finishDeletion(tenantId, state.started_at, finishedAt);
    await purgeStorage(core.ctx.storage);
    core.forgetTenant();
    recordLifecycle({ action: "tenant.deleted", tenant_id: tenantId, started_at: state.started_at, finished_at: finishedAt });
  } catch (error) {
    log("error", "tenant_deletion_pass_failed", { tenant_id: tenantId, error: describeError(error) });
    await core.alarms.sync(Date.now() + deletion.DELETION_RETRY_MS);
  }
}
