/** The tenant index's config calls: limit overrides, allowed models, suspension and the tenant's own settings. */
import { sameJson } from "../../audit/entry";
import type { AuditContext } from "../../audit/types";
import type { PartialLimits } from "../../limits";
import { closeStreamsOf, sessionsStreaming } from "../event-streams";
import { parseOverrides, tenantConfigView, writeOverrides, writeSuspended } from "../tenant-config";
import { parseAllowedModels, writeAllowedModels } from "../tenant-models";
import { maskSettings, parseSettings, writeSettings } from "../tenant-settings";
import type * as T from "../types";
import type { IndexHost } from "./host";
import { cancelActive } from "./across-shards";
import { reclaimSpares, tellShardsSuspended } from "./shards";
import { raisedDailyBudgets } from "../budget-waits";
import { wakeBudgetWaitersEverywhere } from "./shard-spend";

export function tenantConfig(host: IndexHost, tenantId: string): T.TenantConfig {
  return tenantConfigView(tenantId, host.config(), host.createdAt());
}

/** Read without entering: a tenant never entered here answers the platform's defaults, as of now. */
export function configOrDefaults(host: IndexHost | null, unentered: IndexHost, tenantId: string): T.TenantConfig {
  return host ? tenantConfig(host, tenantId) : tenantConfigView(tenantId, unentered.config(), Date.now());
}

export function limitOverrides(host: IndexHost): PartialLimits {
  return host.config().overrides;
}

export function settings(host: IndexHost): T.TenantSettings {
  return host.config().settings;
}

const tenantTarget = (tenantId: string) => ({ type: "tenant", id: tenantId });

export async function setLimitOverrides(
  host: IndexHost,
  tenantId: string,
  overrides: PartialLimits,
  by?: AuditContext,
): Promise<T.TenantConfig> {
  const after = parseOverrides(overrides);
  const before = host.config().overrides;
  const limitsBefore = host.config().limits;
  host.transaction(() => {
    writeOverrides(host.kv, after);
    if (!sameJson(before, after))
      host.audit(by, { action: "tenant.limits_updated", target: tenantTarget(tenantId), details: { before, after } });
  });
  host.configChanged();
  // A lower max_concurrent_runs: every shard gives back what its runs do not hold, so none admits past the new total.
  if (host.config().limits.max_concurrent_runs < limitsBefore.max_concurrent_runs) await reclaimSpares(host, tenantId, "", Infinity);
  await host.schedulePump(); // a higher max_concurrent_runs frees slots for the queue
  // Sessions waiting on a daily budget of the tenant's or a creator's that went up are told (each checks every budget again).
  const raisedBudgets = raisedDailyBudgets(limitsBefore, host.config().limits);
  if (raisedBudgets.length > 0) await wakeBudgetWaitersEverywhere(host, tenantId, raisedBudgets, null, host.config().limits);
  return tenantConfig(host, tenantId);
}

export function setAllowedModels(host: IndexHost, tenantId: string, models: string[] | null, by?: AuditContext): T.TenantConfig {
  const after = parseAllowedModels(models);
  const before = host.config().models;
  host.transaction(() => {
    writeAllowedModels(host.kv, after);
    if (!sameJson(before, after))
      host.audit(by, { action: "tenant.models_updated", target: tenantTarget(tenantId), details: { before, after } });
  });
  host.configChanged();
  return tenantConfig(host, tenantId);
}

/** The flag is set before any session object is asked, so no new request is admitted meanwhile. */
export async function suspend(host: IndexHost, tenantId: string, by?: AuditContext): Promise<T.CancelResult> {
  const was = host.config().suspended;
  host.transaction(() => {
    writeSuspended(host.kv, true);
    if (!was) host.audit(by, { action: "tenant.suspended", target: tenantTarget(tenantId) });
  });
  host.configChanged();
  await tellShardsSuspended(host, tenantId, true);
  const result = await cancelActive(host, tenantId, {});
  // Cancelled runs end their streams; streams of idle sessions are closed here.
  await closeStreamsOf(host.env, tenantId, sessionsStreaming(host.sql, Date.now()), { all: true }, "suspended");
  return result;
}

export async function unsuspend(host: IndexHost, tenantId: string, by?: AuditContext): Promise<void> {
  const was = host.config().suspended;
  host.transaction(() => {
    writeSuspended(host.kv, false);
    if (was) host.audit(by, { action: "tenant.unsuspended", target: tenantTarget(tenantId) });
  });
  host.configChanged();
  await tellShardsSuspended(host, tenantId, false);
  await host.schedulePump();
}

/** A retention set or changed takes effect at the next alarm, which sweeps and arms itself again. */
export async function putSettings(
  host: IndexHost,
  tenantId: string,
  settings: T.TenantSettings,
  by?: AuditContext,
): Promise<T.TenantSettings> {
  const parsed = parseSettings(settings);
  const before = host.config().settings;
  host.transaction(() => {
    writeSettings(host.kv, parsed);
    if (!sameJson(before, parsed)) {
      host.audit(by, {
        action: "settings.updated",
        target: tenantTarget(tenantId),
        details: { before: maskSettings(before), after: maskSettings(parsed) },
      });
    }
  });
  host.configChanged();
  if (parsed.session_retention_days !== before.session_retention_days) await host.wakeSoon();
  return parsed;
}
