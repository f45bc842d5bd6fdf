/**
 * W3C trace context (`traceparent`): parsing what a caller sent, and the ids of the spans a run
 * makes. Pure apart from `newTraceId`/`newSpanId`, which draw from the platform's random source.
 */
import { toHex } from "../shared/hex";

/** A span's place in a trace, as `traceparent` carries it. Ids are lower-case hex. */
export interface SpanContext {
  traceId: string;
  spanId: string;
  /** Whether the caller recorded its span (`01`); kept so a caller's sampling decision travels on. */
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * The caller's span from a `traceparent` header, or null when it is absent or not valid: the
 * recommendation is to start a new trace then, never to refuse the request.
 */
export function parseTraceparent(value: string | null | undefined): SpanContext | null {
  if (!value) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return null;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is forbidden; version 00 has nothing after the flags. A later version may add fields.
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? "01" : "00"}`;
}

export function newTraceId(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

export function newSpanId(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(8)));
}

/**
 * The span id of something the run knows by a stable name (a tool call's id), the same on every
 * retry and after a restart, so the call's outgoing `traceparent` and its span always agree.
 * FNV-1a over 64 bits: ids must differ within a trace, not resist an adversary.
 */
export function derivedSpanId(traceId: string, name: string): string {
  let hash = 0xcbf29ce484222325n;
  const bytes = new TextEncoder().encode(`${traceId}/${name}`);
  for (const byte of bytes) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  const id = hash.toString(16).padStart(16, "0");
  return id === ZERO_SPAN ? "0000000000000001" : id;
}
