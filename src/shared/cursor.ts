/**
 * Opaque page cursors: base64url of a small JSON tuple. Exported so the gateway can reject a
 * malformed `?cursor=` with a 400 before it reaches a Durable Object (which throws on one).
 */

/** A cursor longer than this was not made by us; refusing it bounds the decoding work. */
export const MAX_CURSOR_CHARS = 1024;

/** Position after a row ordered by (time, id), newest first. */
export interface TimeIdCursor {
  ms: number;
  id: string;
}

export function encodeTimeIdCursor(ms: number, id: string): string {
  return encodeTuple([ms, id]);
}

export function decodeTimeIdCursor(text: string): TimeIdCursor | null {
  const tuple = decodeTuple(text);
  if (!tuple || tuple.length !== 2) return null;
  const [ms, id] = tuple;
  if (typeof ms !== "number" || !Number.isSafeInteger(ms) || typeof id !== "string") return null;
  return { ms, id };
}

/** Position after a row ordered by a single string key, ascending. */
export function encodeKeyCursor(key: string): string {
  return encodeTuple([key]);
}

export function decodeKeyCursor(text: string): string | null {
  const tuple = decodeTuple(text);
  if (!tuple || tuple.length !== 1 || typeof tuple[0] !== "string") return null;
  return tuple[0];
}

/** Position after a row ordered by two non-negative integers, ascending (a tool call's message and place in it). */
export interface IntPairCursor {
  first: number;
  second: number;
}

export function encodeIntPairCursor(first: number, second: number): string {
  return encodeTuple([first, second]);
}

export function decodeIntPairCursor(text: string): IntPairCursor | null {
  const tuple = decodeTuple(text);
  if (!tuple || tuple.length !== 2) return null;
  const [first, second] = tuple;
  const ok = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  return ok(first) && ok(second) ? { first, second } : null;
}

function encodeTuple(values: unknown[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(values));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeTuple(text: string): unknown[] | null {
  if (typeof text !== "string" || text.length === 0 || text.length > MAX_CURSOR_CHARS) return null;
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}
