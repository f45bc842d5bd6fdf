/**
 * The platform's one error type: a problem from a closed list of codes, each with its status,
 * title and default detail. Thrown by every operation, whoever runs it (a route, a schedule's
 * firing); the gateway renders it as problem+json (src/api/errors.ts).
 */

/** Bounds the size of a 400 answer to a body with thousands of bad fields. */
export const MAX_REPORTED_FIELD_ERRORS = 50;

const PROBLEMS = {
  bad_request: { status: 400, title: "Bad request", detail: "The request could not be read." },
  validation_failed: { status: 400, title: "Validation failed", detail: "The request has invalid fields; see errors." },
  unauthorized: { status: 401, title: "Unauthorized", detail: "Missing or invalid credentials." },
  forbidden: { status: 403, title: "Forbidden", detail: "The credentials do not allow this operation." },
  tenant_suspended: { status: 403, title: "Tenant suspended", detail: "This tenant is suspended." },
  tenant_deleted: { status: 403, title: "Tenant deleted", detail: "This tenant was deleted, or is being deleted." },
  not_found: { status: 404, title: "Not found", detail: "No such resource." },
  method_not_allowed: { status: 405, title: "Method not allowed", detail: "This method is not allowed on this path." },
  not_acceptable: { status: 406, title: "Not acceptable", detail: "No representation of this resource matches the Accept header." },
  conflict: { status: 409, title: "Conflict", detail: "The resource is not in a state that allows this." },
  idempotency_in_progress: {
    status: 409,
    title: "Request in progress",
    detail: "A request with this Idempotency-Key is still being processed; retry later.",
  },
  payload_too_large: { status: 413, title: "Payload too large", detail: "The request body is too large." },
  unsupported_media_type: { status: 415, title: "Unsupported media type", detail: "Send the body as application/json." },
  idempotency_conflict: {
    status: 422,
    title: "Idempotency key reused",
    detail: "This Idempotency-Key was used with a different request body.",
  },
  rate_limited: { status: 429, title: "Too many requests", detail: "A rate or usage limit was reached; retry later." },
  internal: { status: 500, title: "Internal server error", detail: "Something went wrong on our side." },
  service_unavailable: { status: 503, title: "Service unavailable", detail: "A service this request needs is unreachable; retry shortly." },
  vault_unavailable: {
    status: 503,
    title: "Vault unavailable",
    detail: "The platform's credential vault is not configured (VAULT_KEYS); no credential can be stored or read.",
  },
} as const satisfies Record<string, { status: number; title: string; detail: string }>;

export type ProblemCode = keyof typeof PROBLEMS;
export type ErrorStatus = (typeof PROBLEMS)[ProblemCode]["status"];
export const PROBLEM_CODES = Object.keys(PROBLEMS) as ProblemCode[];

export interface FieldError {
  /** Where the bad value is: `body.name`, `query.limit`, `path.key_id`, `header.idempotency-key`. */
  path: string;
  message: string;
}

export interface ApiErrorOptions {
  errors?: FieldError[];
  /** Sent as `Retry-After`; set for 429 (and wherever a retry time is known). */
  retryAfterSeconds?: number;
  /** Sent as `Allow` on 405. */
  allow?: readonly string[];
}

/**
 * How long the caller of a 503 `service_unavailable` is asked to wait: what failed (a restarting or
 * moving Durable Object, an identity provider's keys) is seconds away.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Thrown by operations, handlers and middleware for every expected failure; the gateway's
 * `onError` renders it. The `detail` goes on the wire, so it must be written for the caller,
 * never copied from an internal error.
 */
export class ApiError extends Error {
  override name = "ApiError";
  readonly code: ProblemCode;
  readonly status: ErrorStatus;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly allow: readonly string[] | undefined;

  constructor(code: ProblemCode, detail?: string, options: ApiErrorOptions = {}) {
    const problem = PROBLEMS[code];
    super(detail ?? problem.detail);
    this.code = code;
    this.status = problem.status;
    this.title = problem.title;
    this.detail = detail ?? problem.detail;
    this.errors = options.errors?.slice(0, MAX_REPORTED_FIELD_ERRORS);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.allow = options.allow;
  }
}
