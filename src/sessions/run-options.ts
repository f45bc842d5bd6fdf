/**
 * What a run carries from its tenant's settings as they stand when it is admitted: its tracing
 * and its redaction. Every operation that starts or queues a run builds them here, so a settings
 * change applies to every run started after it, and a run keeps one setting from start to end.
 */
import type { TenantSettings } from "../tenants/types";
import { traceRequest } from "../traces/request";
import type { RunOptions } from "../session-config/types";

export function settingsOptions(settings: TenantSettings, traceparent: string | null | undefined): RunOptions {
  const trace = traceRequest(settings, traceparent);
  return { ...(trace ? { trace } : {}), ...(settings.redaction ? { redaction: settings.redaction } : {}) };
}
