/**
 * Opaque page cursors: base64url of a small JSON tuple whose first item names its list. Exported
 * so the gateway can reject a malformed `?cursor=`, or one of another list, with a 400 before it
 * reaches a Durable Object (which throws on one).
 */

/** The lists with tuple cursors; written into each cursor, so no list reads another's as a position. */
export type CursorList =
  | "sessions"
  | "schedules"
  | "firings"
  | "webhooks"
  | "deliveries"
  | "api_keys"
  | "tenants"
  | "tool_calls"
  | "agents"
  | "agent_versions"
  | "memory_namespaces"
  | "audit_log"
  | "datasets"
  | "evals";

/**
 * A sequence number in a query (a message's or a step's `seq`, an event's id): decimal digits,
 * at most 15 of them, so every one is a safe integer. One rule for the gateway and the session
 * object alike.
 */
export const MAX_SEQUENCE_DIGITS = 15;
export const SEQUENCE_PATTERN = new RegExp(`^\\d{1,${MAX_SEQUENCE_DIGITS}}$`);

/** A cursor longer than this was not made by us; refusing it bounds the decoding work. */
export const MAX_CURSOR_CHARS = 1024;
/** The characters of a cursor: base64url without padding. */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Position after a row ordered by (time, id), newest first. */
export interface TimeIdCursor {
  ms: number;
  id: string;
}

export function encodeTimeIdCursor(list: CursorList, ms: number, id: string): string {
  return encodeTuple(list, [ms, id]);
}

export function decodeTimeIdCursor(list: CursorList, text: string): TimeIdCursor | null {
  const tuple = decodeTuple(list, text);
  if (!tuple || tuple.length !== 2) return null;
  const [ms, id] = tuple;
  if (typeof ms !== "number" || !Number.isSafeInteger(ms) || typeof id !== "string") return null;
  return { ms, id };
}

/** Position after a row ordered by a single string key, ascending. */
export function encodeKeyCursor(list: CursorList, key: string): string {
  return encodeTuple(list, [key]);
}

export function decodeKeyCursor(list: CursorList, text: string): string | null {
  const tuple = decodeTuple(list, text);
  if (!tuple || tuple.length !== 1 || typeof tuple[0] !== "string") return null;
  return tuple[0];
}

/** Position after a row ordered by two non-negative integers, ascending (a tool call's message and place in it). */
export interface IntPairCursor {
  first: number;
  second: number;
}

export function encodeIntPairCursor(list: CursorList, first: number, second: number): string {
  return encodeTuple(list, [first, second]);
}

export function decodeIntPairCursor(list: CursorList, text: string): IntPairCursor | null {
  const tuple = decodeTuple(list, text);
  if (!tuple || tuple.length !== 2) return null;
  const [first, second] = tuple;
  const ok = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  return ok(first) && ok(second) ? { first, second } : null;
}

function encodeTuple(list: CursorList, values: unknown[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify([list, ...values]));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The values after the list name; null for anything malformed or of another list. */
function decodeTuple(list: CursorList, text: string): unknown[] | null {
  if (typeof text !== "string" || text.length === 0 || text.length > MAX_CURSOR_CHARS) return null;
  if (!CURSOR_PATTERN.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
    return Array.isArray(value) && value[0] === list ? value.slice(1) : null;
  } catch {
    return null;
  }
}
