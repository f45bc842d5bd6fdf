/**
 * Conditional GETs for the reads a watcher polls (the sessions list, a session): an entity tag
 * derived from the JSON the route answers, and a 304 with no body when the caller's
 * `If-None-Match` names the current one. The tag is a hash of what the route already read, so a
 * poll costs the same store call as before and no more; what it saves is the body on the wire
 * and the client's parse and redraw.
 *
 * Not Hono's `etag` middleware: on a 304 it keeps only the headers of its fixed list, which
 * drops `X-Request-Id` and the CORS headers a cross-origin page needs to read the answer, and it
 * reads the body stream back to hash it. Here the 304 is built through the context, so every
 * header the middleware set stays.
 */
import { z } from "@hono/zod-openapi";
import type { AppContext } from "./context";
import { headerRefs } from "./openapi-headers";

export const IF_NONE_MATCH_PARAM = "if-none-match";
/** Any cache may revalidate but none may reuse an answer without asking; shared caches never store it. */
export const CONDITIONAL_CACHE_CONTROL = "private, no-cache";
/** 128 bits of SHA-256: collisions between two states of one resource are out of reach. */
const TAG_BYTES = 16;
/** A header longer than this names more tags than any client keeps; it is read as no match. */
export const MAX_IF_NONE_MATCH_CHARS = 2_048;

export const ConditionalHeadersSchema = z.object({
  [IF_NONE_MATCH_PARAM]: z
    .string()
    .max(MAX_IF_NONE_MATCH_CHARS)
    .optional()
    .openapi({
      param: { name: IF_NONE_MATCH_PARAM, in: "header" },
      description: "The `ETag` of an earlier answer: when it is still current, the answer is 304 with no body.",
      example: 'W/"3q2-7wAAAAAAAAAAAAAAA"',
    }),
});

/** The 200 (JSON with its tag) and the 304 of a conditional GET, for a route's `responses`. */
export function conditionalResponses<T extends z.ZodType>(schema: T, description: string) {
  const headers = headerRefs("ETag", "CacheControl");
  return {
    200: { description, headers, content: { "application/json": { schema } } },
    304: { description: "Not modified: the tag in `If-None-Match` is still current. No body.", headers },
  };
}

/**
 * Pure: the weak tag of a JSON text. Weak, because the same JSON may travel compressed or not;
 * a weak tag promises the same content, which is what a poller compares.
 */
export async function entityTag(json: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(json)));
  let binary = "";
  for (const byte of digest.subarray(0, TAG_BYTES)) binary += String.fromCharCode(byte);
  const base64url = btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return `W/"${base64url}"`;
}

/**
 * Pure: whether `If-None-Match` names `tag`, by the weak comparison RFC 9110 §13.1.2 asks for
 * (`W/` ignored on both sides); `*` matches any current representation.
 */
export function ifNoneMatchHits(header: string | undefined, tag: string): boolean {
  if (header === undefined || header.length > MAX_IF_NONE_MATCH_CHARS) return false;
  if (header.trim() === "*") return true;
  const wanted = opaque(tag);
  const listed = header.match(/(?:W\/)?"[^"]*"/g) ?? [];
  return listed.some((entry) => opaque(entry) === wanted);
}

function opaque(tag: string): string {
  return tag.startsWith("W/") ? tag.slice(2) : tag;
}

/**
 * The answer to a conditional GET: 304 with the tag when the caller's copy is current, else 200
 * with the JSON and its tag. Either way with `Cache-Control: private, no-cache`.
 */
export async function conditionalJson<T>(c: AppContext, body: T): Promise<Response> {
  const json = JSON.stringify(c.var.shown ? c.var.shown(body) : body);
  const tag = await entityTag(json);
  c.header("ETag", tag);
  c.header("Cache-Control", CONDITIONAL_CACHE_CONTROL);
  if (ifNoneMatchHits(c.req.header("If-None-Match"), tag)) return c.body(null, 304);
  c.header("Content-Type", "application/json");
  return c.body(json, 200);
}
