/**
 * `Idempotency-Key` for the POSTs that create or start something: the first response to a key
 * is kept by the tenant index for 24 h and replayed (with `Idempotent-Replayed: true`) to a
 * retry with the same body; a different body is a 422, a retry while the first is still
 * running a 409. Without the header a request simply runs.
 */
import { z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { maskMcpHeadersDeep } from "../../session-config/masking";
import { tenantIndexStub } from "../../objects";
import { sha256Hex } from "../../shared/hex";
import type { IdempotencyBegin } from "../../tenants/types";
import type { AppContext, AppEnv } from "../context";
import { ApiError, PROBLEM_CONTENT_TYPE } from "../errors";
import { IDEMPOTENT_REPLAYED_HEADER } from "../openapi-headers";
import { describeError, log } from "../../log";
import { readBody } from "./body-limit";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export { IDEMPOTENT_REPLAYED_HEADER };
/** The header parameter's name in the document: Hono hands header validators lowercased names. */
export const IDEMPOTENCY_KEY_PARAM = "idempotency-key";
/** Room for a UUID or any client-side scheme; printable ASCII so it is safe in logs. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]+$/;

/**
 * Answers not kept for replay: "not now" (a run is already going, a limit was hit) and our own
 * failures (5xx). The same request may succeed later, so the key is released at once and a
 * retry with it runs again.
 */
export function isReplayable(status: number): boolean {
  return status !== 409 && status !== 429 && status < 500;
}

/** For a route's `request.headers`, so the header is documented and validated. */
export const IdempotencyHeadersSchema = z.object({
  [IDEMPOTENCY_KEY_PARAM]: z
    .string()
    .min(1)
    .max(MAX_IDEMPOTENCY_KEY_LENGTH)
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .optional()
    .openapi({
      // The key must be the lowercase name: Hono hands header validators lowercased names, and
      // the document generator refuses a parameter name that differs from its key.
      param: { name: IDEMPOTENCY_KEY_PARAM, in: "header" },
      description: "Makes the request safe to retry: the same key and body within 24 h return the first response again.",
      example: "5d0c7f2e-2a51-4f0e-9a1b-6c3f8e9d2b47",
    }),
});

/** What is kept for a replay: the response as the caller saw it, minus per-request headers. */
interface StoredResponse {
  content_type: string | null;
  location: string | null;
  /** The parsed JSON body, or null for an empty one. */
  json: unknown;
}

export function idempotent(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined) return next();
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ApiError("validation_failed", undefined, {
        errors: [{ path: "header.idempotency-key", message: `Must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters.` }],
      });
    }
    const principal = c.var.principal;
    const index = tenantIndexStub(c.env, principal.tenantId);
    const scope = await idempotencyScope(principal.subject, c.req.method, c.req.path);
    const bodyHash = await sha256Hex(await readBody(c));

    // RPC typing cannot carry `unknown` (the replayed body); the shape is the agreed one.
    const begun = (await index.beginIdempotent(principal.tenantId, { scope, key, bodyHash, now: Date.now() })) as IdempotencyBegin;
    switch (begun.state) {
      case "conflict":
        throw new ApiError("idempotency_conflict");
      case "in_progress":
        throw new ApiError("idempotency_in_progress");
      case "replay":
        return replay(c, begun.status, begun.body);
      case "new":
        break;
    }

    await next();
    const stored = isReplayable(c.res.status) ? await captureResponse(c.res) : null;
    try {
      if (stored === null) await index.releaseIdempotent(principal.tenantId, { scope, key });
      else await index.completeIdempotent(principal.tenantId, { scope, key, status: c.res.status, body: stored, now: Date.now() });
    } catch (error) {
      // The caller still gets its answer; a retry after the in-progress timeout runs again.
      log("warn", "idempotency_complete_failed", { request_id: c.var.requestId, error: describeError(error).message });
    }
  };
}

/**
 * Keys of different callers, and of different operations, never meet. Hashed, because the raw
 * path may be long (an id not validated yet) and the tenant index bounds its fields.
 */
export async function idempotencyScope(subject: string, method: string, path: string): Promise<string> {
  const text = `${subject} ${method.toUpperCase()} ${path}`;
  return sha256Hex(text);
}

async function captureResponse(res: Response): Promise<StoredResponse | null> {
  const text = await res.clone().text();
  let json: unknown = null;
  if (text !== "") {
    try {
      // Sessions already show MCP header values masked; this keeps any answer that carries a
      // tool list from storing a credential, whatever route produced it.
      json = maskMcpHeadersDeep(JSON.parse(text));
    } catch {
      return null;
    }
  }
  return { content_type: res.headers.get("Content-Type"), location: res.headers.get("Location"), json };
}

function replay(c: AppContext, status: number, body: unknown): Response {
  const stored = body as Partial<StoredResponse> | null;
  const headers: Record<string, string> = { [IDEMPOTENT_REPLAYED_HEADER]: "true" };
  headers["Content-Type"] = stored?.content_type ?? (status >= 400 ? PROBLEM_CONTENT_TYPE : "application/json");
  if (stored?.location) headers["Location"] = stored.location;
  const json = stored?.json ?? null;
  if (status === 204 || json === null) return c.body(null, status as ContentfulStatusCode, headers);
  return c.body(JSON.stringify(json), status as ContentfulStatusCode, headers);
}
