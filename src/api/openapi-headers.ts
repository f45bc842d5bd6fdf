/**
 * The response headers of the document, declared once as components that routes reference,
 * so generated clients get one named, typed header wherever it appears.
 */
import type { App } from "./context";
import { REQUEST_ID_HEADER } from "./middleware/request-id";

/** Set on a replayed answer (see middleware/idempotency.ts). */
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

interface HeaderComponent {
  description: string;
  required?: boolean;
  schema: { type: "string" | "integer"; [keyword: string]: unknown };
}

export type ResponseHeaderName = "RequestId" | "IdempotentReplayed" | "RetryAfter" | "Location" | "WwwAuthenticate" | "ETag" | "CacheControl";

/** Component name → the header it describes. */
export const RESPONSE_HEADERS: Record<ResponseHeaderName, { name: string; header: HeaderComponent }> = {
  RequestId: {
    name: REQUEST_ID_HEADER,
    header: {
      description: "The request's id: the caller's `X-Request-Id` when it was usable, else a generated one. Quote it when reporting a problem.",
      required: true,
      schema: { type: "string", maxLength: 128, example: "3f1c2d9e-8c1b-4f5e-9a57-0d3c1e2b4a69" },
    },
  },
  IdempotentReplayed: {
    name: IDEMPOTENT_REPLAYED_HEADER,
    header: {
      description: "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key` and body; absent otherwise.",
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
  CacheControl: {
    name: "Cache-Control",
    header: { description: "`private, no-cache`: a cache may keep the answer but must revalidate it with `If-None-Match`.", required: true, schema: { type: "string" } },
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
