/** The tenant index's config calls: limit overrides, allowed models, suspension and the tenant's own settings. */
import type { PartialLimits } from "../../limits";
import { closeStreamsOf, sessionsStreaming } from "../event-streams";
import { parseOverrides, tenantConfigView, writeOverrides, writeSuspended } from "../tenant-config";
import { parseAllowedModels, writeAllowedModels } from "../tenant-models";
import { parseSettings, writeSettings } from "../tenant-settings";
import type * as T from "../types";
import type { IndexHost } from "./host";
import { cancelActive } from "./sessions";

export function tenantConfig(host: IndexHost, tenantId: string): T.TenantConfig {
  return tenantConfigView(tenantId, host.config(), host.createdAt());
}

export async function setLimitOverrides(host: IndexHost, tenantId: string, overrides: PartialLimits): Promise<T.TenantConfig> {
  writeOverrides(host.kv, parseOverrides(overrides));
  host.configChanged();
  await host.schedulePump(); // a higher max_concurrent_runs frees slots for the queue
  return tenantConfig(host, tenantId);
}

export function setAllowedModels(host: IndexHost, tenantId: string, models: string[] | null): T.TenantConfig {
  writeAllowedModels(host.kv, parseAllowedModels(models));
  host.configChanged();
  return tenantConfig(host, tenantId);
}

/** The flag is set before any session object is asked, so no new request is admitted meanwhile. */
export async function suspend(host: IndexHost, tenantId: string): Promise<T.CancelResult> {
  writeSuspended(host.kv, true);
  host.configChanged();
  const result = await cancelActive(host, tenantId, {});
  // Cancelled runs end their streams; streams of idle sessions are closed here.
  await closeStreamsOf(host.env, tenantId, sessionsStreaming(host.sql, Date.now()), { all: true }, "suspended");
  return result;
}

export async function unsuspend(host: IndexHost): Promise<void> {
  writeSuspended(host.kv, false);
  host.configChanged();
  await host.schedulePump();
}

/** A retention set or changed takes effect at the next alarm, which sweeps and arms itself again. */
export async function putSettings(host: IndexHost, settings: T.TenantSettings): Promise<T.TenantSettings> {
  const parsed = parseSettings(settings);
  const before = host.config().settings.session_retention_days;
  writeSettings(host.kv, parsed);
  host.configChanged();
  if (parsed.session_retention_days !== before) await host.wakeSoon();
  return parsed;
}
