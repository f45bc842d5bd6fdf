/**
 * The OTLP/HTTP JSON body of an export: the official serializer of `@opentelemetry/otlp-transformer`,
 * fed the stored span records shaped as the SDK's finished spans, so the encoding (hex ids,
 * nanosecond strings, attribute values, status and kind numbers) is the one every collector reads.
 */
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { SpanAttribute, SpanRecord } from "../session-config/trace-types";

/** What the spans say produced them. */
export const SERVICE_NAME = "agent-platform";
const SCOPE = { name: "agent-platform", version: "1" };
const RESOURCE = { attributes: { "service.name": SERVICE_NAME } };

/** `SpanKind` of the OpenTelemetry API (the serializer adds one for the wire). */
const KINDS = { internal: 0, client: 2 } as const;
/** `SpanStatusCode`: UNSET 0, ERROR 2. */
const STATUS_ERROR = 2;

type HrTime = [number, number];

function hrTime(ms: number): HrTime {
  const whole = Math.floor(ms);
  return [Math.floor(whole / 1000), (whole % 1000) * 1_000_000];
}

/** The request body for `records`, all of one resource and scope. */
export function exportBody(records: readonly SpanRecord[]): string {
  const spans = records.map((record) => {
    const context = { traceId: record.trace_id, spanId: record.span_id, traceFlags: 1 };
    return {
      name: record.name,
      kind: KINDS[record.kind],
      spanContext: () => context,
      parentSpanContext: record.parent_span_id ? { traceId: record.trace_id, spanId: record.parent_span_id, traceFlags: 1 } : undefined,
      startTime: hrTime(record.start_ms),
      endTime: hrTime(Math.max(record.end_ms, record.start_ms)),
      status: record.error === null ? { code: 0 } : { code: STATUS_ERROR, message: record.error },
      attributes: record.attributes as Record<string, SpanAttribute>,
      links: [],
      events: [],
      duration: hrTime(Math.max(0, record.end_ms - record.start_ms)),
      ended: true,
      resource: RESOURCE,
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  });
  // The serializer's parameter is the SDK's `ReadableSpan`; these carry every field it reads.
  const bytes = JsonTraceSerializer.serializeRequest(spans as unknown as Parameters<typeof JsonTraceSerializer.serializeRequest>[0]);
  return new TextDecoder().decode(bytes);
}
