/**
 * The response headers of the document, declared once as components that routes reference,
 * so generated clients get one named, typed header wherever it appears.
 */
import type { App } from "./context";
import { REQUEST_ID_HEADER } from "./middleware/request-id";
import { RATE_LIMIT_HEADER, RATE_LIMIT_POLICY_HEADER } from "./rate-limit-fields";

/** Set on a replayed answer (see middleware/idempotency.ts). */
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

interface HeaderComponent {
  description: string;
  required?: boolean;
  schema: { type: "string" | "integer"; [keyword: string]: unknown };
}

export type ResponseHeaderName =
  | "RequestId"
  | "IdempotentReplayed"
  | "RetryAfter"
  | "Location"
  | "WwwAuthenticate"
  | "ETag"
  | "CacheControl"
  | "RateLimitPolicy"
  | "RateLimit";

/** Component name → the header it describes. */
export const RESPONSE_HEADERS: Record<ResponseHeaderName, { name: string; header: HeaderComponent }> = {
  RequestId: {
    name: REQUEST_ID_HEADER,
    header: {
      description:
        "The caller's own `X-Request-Id` when it was usable, else the platform's id of the request (a problem document's `request_id` is always the platform's, and the one to quote when reporting a problem).",
      required: true,
      schema: { type: "string", maxLength: 128, example: "3f1c2d9e-8c1b-4f5e-9a57-0d3c1e2b4a69" },
    },
  },
  IdempotentReplayed: {
    name: IDEMPOTENT_REPLAYED_HEADER,
    header: {
      description:
        "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key` and body; absent otherwise.",
      schema: { type: "string", enum: ["true"] },
    },
  },
  RetryAfter: {
    name: "Retry-After",
    header: { description: "Seconds to wait before retrying.", required: true, schema: { type: "integer", minimum: 1, example: 30 } },
  },
  Location: {
    name: "Location",
    header: { description: "The path of the created resource.", required: true, schema: { type: "string", format: "uri-reference" } },
  },
  WwwAuthenticate: {
    name: "WWW-Authenticate",
    header: { description: "Always `Bearer`, with no hint of why the credential failed.", required: true, schema: { type: "string" } },
  },
  ETag: {
    name: "ETag",
    header: {
      description: "A weak tag of this answer's content: send it back as `If-None-Match` to get 304 while nothing changed.",
      required: true,
      schema: { type: "string", example: 'W/"3q2-7wAAAAAAAAAAAAAAA"' },
    },
  },
  RateLimitPolicy: {
    name: RATE_LIMIT_POLICY_HEADER,
    header: {
      description:
        "The rate windows this request was counted in (IETF draft-ietf-httpapi-ratelimit-headers, structured fields): each a name, its quota `q` and its window `w` in seconds. " +
        "`tenant` (the tenant's `requests_per_minute`) and `caller` (this API key's or user's share of it) for most requests; `admin` for an admin's API-key management and suspension requests. " +
        "On every answer to an authenticated and admitted request, a 429 of the rate limit included.",
      schema: { type: "string", example: '"tenant";q=600;w=60, "caller";q=300;w=60' },
    },
  },
  RateLimit: {
    name: RATE_LIMIT_HEADER,
    header: {
      description:
        "The window of `RateLimit-Policy` closest to running out: its name, the requests `r` left in it and the seconds `t` until it starts afresh. " +
        "`r=0` means the next request before then gets 429. Sent wherever `RateLimit-Policy` is.",
      schema: { type: "string", example: '"caller";r=42;t=17' },
    },
  },
  CacheControl: {
    name: "Cache-Control",
    header: {
      description: "`private, no-cache`: a cache may keep the answer but must revalidate it with `If-None-Match`.",
      required: true,
      schema: { type: "string" },
    },
  },
};

/** `{ "<Header-Name>": { $ref } }` for a response's `headers`. */
export function headerRefs(...names: ResponseHeaderName[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((name) => [RESPONSE_HEADERS[name].name, { $ref: `#/components/headers/${name}` }]));
}

export function registerResponseHeaders(app: App): void {
  for (const [name, { header }] of Object.entries(RESPONSE_HEADERS)) {
    app.openAPIRegistry.registerComponent("headers", name, { ...header });
  }
}
