/** A request's tracing, decided at the gateway: none unless the tenant exports traces; a child of the caller's `traceparent` when valid. Pure. */
import type { TenantSettings } from "../tenants/types";
import { parseTraceparent } from "./trace-context";
import type { TraceRequest } from "../session-config/trace-types";

export function traceRequest(settings: Pick<TenantSettings, "traces">, traceparent: string | null | undefined): TraceRequest | undefined {
  if (!settings.traces) return undefined;
  const parent = parseTraceparent(traceparent);
  return {
    parent: parent ? { trace_id: parent.traceId, span_id: parent.spanId, sampled: parent.sampled } : null,
    capture_content: settings.traces.capture_content === true,
  };
}
