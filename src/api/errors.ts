/**
 * The wire form of the platform's one error type (src/problems.ts): RFC 9457 problem details,
 * and the same closed list documenting every route's error responses (`errorResponses`).
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ApiError, type ErrorStatus, PROBLEM_CODES, type ProblemCode } from "../problems";
import { headerRefs, type ResponseHeaderName } from "./openapi-headers";

export {
  ApiError,
  type ApiErrorOptions,
  type ErrorStatus,
  type FieldError,
  MAX_REPORTED_FIELD_ERRORS,
  PROBLEM_CODES,
  type ProblemCode,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from "../problems";

/** Problem `type` URIs: one per code, stable, so clients can switch on them. */
export const PROBLEM_TYPE_BASE = "https://agents.local/problems/";
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export function problemType(code: ProblemCode): string {
  return PROBLEM_TYPE_BASE + code;
}

export const FieldErrorSchema = z
  .object({
    path: z.string().openapi({ example: "body.name" }),
    message: z.string().openapi({ example: "Too small: expected string to have >=1 characters" }),
  })
  .openapi("FieldError");

export const ProblemCodeSchema = z.enum(PROBLEM_CODES as [ProblemCode, ...ProblemCode[]]).openapi("ProblemCode", {
  description: "A stable, machine-readable name for the problem, from this closed list; `type` is the same name as a URI.",
  example: "validation_failed",
});

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: `${PROBLEM_TYPE_BASE}validation_failed` }),
    code: ProblemCodeSchema,
    title: z.string().openapi({ example: "Validation failed" }),
    status: z.number().int().openapi({ example: 400 }),
    detail: z.string(),
    request_id: z.string().openapi({
      description:
        "The platform's own id of the request, as its logs and audit log carry it (the `X-Request-Id` header echoes the caller's own when it sent one).",
      example: "3f1c2d9e-8c1b-4f5e-9a57-0d3c1e2b4a69",
    }),
    errors: z.array(FieldErrorSchema).optional(),
  })
  .openapi("Problem", { description: "An RFC 9457 problem document." });

export type Problem = z.infer<typeof ProblemSchema>;

/** Renders an `ApiError` as `application/problem+json` with the headers its status calls for. */
export function problemJson(c: Context, error: ApiError): Response {
  const body: Problem = {
    type: problemType(error.code),
    code: error.code,
    title: error.title,
    status: error.status,
    detail: error.detail,
    request_id: (c.get("requestId") as string | undefined) ?? "",
  };
  if (error.errors && error.errors.length > 0) body.errors = error.errors;

  const headers: Record<string, string> = { "Content-Type": PROBLEM_CONTENT_TYPE, "Cache-Control": "no-store" };
  // RFC 6750 §3: no `error` attribute, so the caller learns nothing about why the credential failed.
  if (error.status === 401) headers["WWW-Authenticate"] = 'Bearer realm="agent-platform"';
  if (error.retryAfterSeconds !== undefined) headers["Retry-After"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  if (error.allow) headers["Allow"] = error.allow.join(", ");
  return c.body(JSON.stringify(body), error.status, headers);
}

/** The ApiError for an HTTP status raised by a library (the JSON validator, the media-type gate). */
export function apiErrorForStatus(status: number, message: string): ApiError {
  switch (status) {
    case 400:
      return message.includes("JSON") ? new ApiError("bad_request", "The request body is not valid JSON.") : new ApiError("bad_request");
    case 413:
      return new ApiError("payload_too_large");
    case 415:
      return new ApiError("unsupported_media_type");
    default:
      return new ApiError("internal");
  }
}

/** What each status means in the document; a status shared by several codes lists them. */
const RESPONSE_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: "Malformed JSON (`bad_request`) or invalid fields (`validation_failed`, with `errors`).",
  401: "No or invalid credentials (`unauthorized`); comes with `WWW-Authenticate: Bearer`.",
  403: "Authenticated but lacking a scope (`forbidden`), or the tenant is suspended (`tenant_suspended`) or deleted (`tenant_deleted`).",
  404: "Unknown, or not visible to this caller (`not_found`).",
  405: "Method not allowed on this path (`method_not_allowed`); comes with `Allow`.",
  406: "The `Accept` header allows none of the route's media types (`not_acceptable`).",
  409: "Wrong state for this operation (`conflict`), or the same Idempotency-Key is still in flight (`idempotency_in_progress`).",
  413: "The body is larger than the tenant's `max_request_bytes`, or than the platform's before authentication (`payload_too_large`).",
  415: "The body is not `application/json` (`unsupported_media_type`).",
  422: "The Idempotency-Key was used with a different body (`idempotency_conflict`).",
  429: "A rate or usage limit was reached (`rate_limited`); comes with `Retry-After`, and `RateLimit` names the rate window when that was the limit.",
  500: "An unexpected error (`internal`); the request id identifies it in the logs.",
  503: "A service the request needs (the tenant's store, an identity provider's keys) is unreachable, or a Durable Object failed the call (`service_unavailable`); comes with `Retry-After`. Answered during authentication, it means the credentials were not judged. The credential routes answer `vault_unavailable` while the platform has no `VAULT_KEYS`.",
};

const problemContent = { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } };

const RESPONSE_HEADERS: Partial<Record<ErrorStatus, ResponseHeaderName[]>> = {
  401: ["WwwAuthenticate"],
  429: ["RetryAfter"],
  503: ["RetryAfter"],
};

export interface ProblemResponse {
  description: string;
  content: typeof problemContent;
  headers?: Record<string, { $ref: string }>;
}

/**
 * A documented problem response in the document's own JSON form, for passes over the finished
 * document (src/api/openapi.ts) that add a response every operation of a kind can answer.
 */
export function problemResponseRef(status: ErrorStatus): { description: string; content: Record<string, { schema: { $ref: string } }> } {
  return {
    description: RESPONSE_DESCRIPTIONS[status],
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: "#/components/schemas/Problem" } } },
  };
}

/** The errors any route behind authentication can answer with. */
export const AUTHENTICATED_ERRORS = [400, 401, 403, 429, 500, 503] as const;
/** Further errors of a route that reads a JSON body. */
export const BODY_ERRORS = [413, 415] as const;
/** The errors of a public route: a body on a GET is refused, and a declared body over the platform's cap on any route. */
export const PUBLIC_ERRORS = [400, 413, 500] as const;

/**
 * The documented error responses of a route, to spread into its `responses`:
 * `...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404)`.
 */
export function errorResponses<S extends ErrorStatus>(...statuses: readonly S[]): { [K in S]: ProblemResponse } {
  const responses = {} as { [K in S]: ProblemResponse };
  for (const status of statuses) {
    const headers = RESPONSE_HEADERS[status];
    responses[status] = {
      description: RESPONSE_DESCRIPTIONS[status],
      content: problemContent,
      ...(headers ? { headers: headerRefs(...headers) } : {}),
    };
  }
  return responses;
}
