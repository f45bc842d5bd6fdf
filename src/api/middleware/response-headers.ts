/**
 * Headers a middleware puts on every response, errors included: set on the context before
 * `next`, so responses built through it carry them, and checked again after, for responses
 * built elsewhere (a replayed or passed-through Response).
 */
import type { Context } from "hono";

export function prepareHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
}

export function ensureHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  const missing = Object.entries(headers).filter(([name, value]) => c.res.headers.get(name) !== value);
  if (missing.length === 0) return;
  try {
    for (const [name, value] of missing) c.res.headers.set(name, value);
  } catch {
    // Immutable headers (a Response from fetch): copy it.
    const copy = new Response(c.res.body, c.res);
    for (const [name, value] of missing) copy.headers.set(name, value);
    c.res = copy;
  }
}
