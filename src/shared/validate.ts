/**
 * Argument checks for the tenant objects' RPC methods. A bad argument is a caller's bug, not an
 * expected outcome, so these throw (TypeError/RangeError keep their names across RPC).
 */
import { MAX_CURSOR_CHARS } from "./cursor";

/** Page sizes accepted by every list method, matching the public `?limit=` range. */
export const MIN_PAGE_LIMIT = 1;
export const MAX_PAGE_LIMIT = 200;
/** Ids, names and keys longer than this are refused rather than stored. */
export const MAX_ID_CHARS = 256;

export function requireString(name: string, value: unknown, maxChars = MAX_ID_CHARS): string {
  if (typeof value !== "string" || value.length === 0) throw new TypeError(`${name} must be a non-empty string`);
  if (value.length > maxChars) throw new RangeError(`${name} is longer than ${maxChars} characters`);
  return value;
}

export function requireInt(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw new TypeError(`${name} must be an integer`);
  if (value < min || value > max) throw new RangeError(`${name} must be between ${min} and ${max}`);
  return value;
}

/** A clock reading in milliseconds since the epoch. */
export function requireNow(value: unknown): number {
  return requireInt("now", value, 0);
}

export function requirePageLimit(value: unknown): number {
  return requireInt("limit", value, MIN_PAGE_LIMIT, MAX_PAGE_LIMIT);
}

export function optionalString(name: string, value: unknown, maxChars = MAX_ID_CHARS): string | null {
  if (value === undefined || value === null) return null;
  return requireString(name, value, maxChars);
}

/** A record of strings (a session's metadata, a filter by it) within the given bounds, or null. */
export function optionalStringRecord(
  name: string,
  value: unknown,
  bounds: { maxEntries: number; maxKeyChars: number; maxValueChars: number },
): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw new TypeError(`${name} must be an object or null`);
  const entries = Object.entries(value);
  if (entries.length > bounds.maxEntries) throw new RangeError(`${name} has more than ${bounds.maxEntries} entries`);
  for (const [key, entry] of entries) {
    requireString(`${name} key`, key, bounds.maxKeyChars);
    if (typeof entry !== "string" || entry.length > bounds.maxValueChars)
      throw new TypeError(`${name}.${key} must be a string of at most ${bounds.maxValueChars} characters`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/** A list's `cursor`: absent, or a string of at most a cursor's length (its form is the store's to check). */
export function optionalCursor(value: unknown): string | null {
  return optionalString("cursor", value, MAX_CURSOR_CHARS);
}

/** Milliseconds of an ISO 8601 timestamp, or a TypeError. */
export function requireIsoMs(name: string, value: unknown): number {
  if (typeof value !== "string") throw new TypeError(`${name} must be an ISO 8601 string`);
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new TypeError(`${name} must be an ISO 8601 string`);
  return ms;
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The UTC calendar day of a time, as `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  return toIso(ms).slice(0, 10);
}
