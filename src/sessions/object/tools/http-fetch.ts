/**
 * The built-in `http_fetch` tool: its definition for the model and its implementation on top
 * of `safeFetch`, formatting every outcome (answers, refusals, timeouts) as text for the model.
 */
import { safeFetch, type SafeFetchResult } from "../../../egress/safe-fetch";

/** A slow site gives the model a readable timeout well within the unit's time budget. */
export const HTTP_FETCH_TIMEOUT_MS = 15_000;
/** Bytes of response body read; a model gets at most a few thousand characters of it anyway. */
export const HTTP_FETCH_MAX_BYTES = 256 * 1024;
export const HTTP_FETCH_MAX_REDIRECTS = 5;
/** Caps what a model may send, so the tool cannot be used to push large uploads out. */
export const HTTP_FETCH_MAX_REQUEST_BODY_CHARS = 64 * 1024;
export const HTTP_FETCH_MAX_HEADERS = 32;

/**
 * At-most-once: a call cut off by a restart is not repeated, because a POST may change
 * something on the far side and the tool has no idempotency key to offer. The model sees an
 * error result instead and may fetch again itself, which is harmless for a GET.
 */
export const HTTP_FETCH_AT_MOST_ONCE = true;

export const HTTP_FETCH_DEFINITION = {
  name: "http_fetch",
  description:
    "Fetch a public http or https URL and return the status, the content type and the body as text. " +
    "Uses GET unless method is POST; `body` is sent only with POST. Only text responses " +
    "(HTML, JSON, XML, plain text) are returned, and long bodies are cut. Requests to private, " +
    "loopback, link-local or cloud metadata addresses are refused. A redirect to another site keeps only the " +
    "Accept, Accept-Language, User-Agent and Cache-Control headers; a POST redirected to another site with 307 " +
    "or 308 is not followed, and the redirect is returned instead.",
  input_schema: {
    type: "object",
    properties: {
      url: { type: "string", description: "Absolute http or https URL." },
      method: { type: "string", enum: ["GET", "POST"], description: "Defaults to GET." },
      body: { type: "string", maxLength: HTTP_FETCH_MAX_REQUEST_BODY_CHARS, description: "Request body, POST only." },
      headers: {
        type: "object",
        additionalProperties: { type: "string" },
        maxProperties: HTTP_FETCH_MAX_HEADERS,
        description: "Extra request headers, such as Accept or Content-Type.",
      },
    },
    required: ["url"],
    additionalProperties: false,
  },
} as const;

export interface HttpFetchInput {
  url: string;
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
}

export interface HttpFetchContext {
  allowPrivate: boolean;
  maxOutputChars: number;
  signal: AbortSignal;
  fetchImpl?: typeof fetch;
}

export interface ToolOutput {
  output: string;
  isError: boolean;
}

/**
 * Runs one call. The input is checked again here, not trusted from the registry, because
 * this function is also the last thing between a model's text and the network.
 */
export async function runHttpFetch(input: unknown, ctx: HttpFetchContext): Promise<ToolOutput> {
  const parsed = parseInput(input);
  if (typeof parsed === "string") return { output: cut(`invalid input: ${parsed}`, ctx.maxOutputChars), isError: true };
  const result = await safeFetch(
    parsed.url,
    { method: parsed.method ?? "GET", headers: parsed.headers, body: parsed.body, signal: ctx.signal },
    {
      allowPrivate: ctx.allowPrivate,
      timeoutMs: HTTP_FETCH_TIMEOUT_MS,
      maxBytes: HTTP_FETCH_MAX_BYTES,
      maxRedirects: HTTP_FETCH_MAX_REDIRECTS,
      textOnly: true,
      fetchImpl: ctx.fetchImpl,
    },
  );
  return formatResult(result, ctx.maxOutputChars);
}

/**
 * A status of 400 or more is marked as an error so the model treats the call as failed,
 * but the body is still shown: error pages often say what went wrong.
 */
export function formatResult(result: SafeFetchResult, maxOutputChars: number): ToolOutput {
  if (!result.ok) return { output: cut(failureText(result), maxOutputChars), isError: true };
  const lines = [`HTTP ${result.status}`, `Content-Type: ${result.contentType ?? "(none)"}`, `URL: ${result.finalUrl}`, ""];
  lines.push(result.body);
  if (result.truncated) lines.push(`[body cut at ${HTTP_FETCH_MAX_BYTES} bytes]`);
  return { output: cut(lines.join("\n"), maxOutputChars), isError: result.status >= 400 };
}

function failureText(result: Extract<SafeFetchResult, { ok: false }>): string {
  switch (result.reason) {
    case "refused":
      return `refused: ${result.detail}`;
    case "timeout":
      return `timed out: ${result.detail}`;
    case "aborted":
      return `cancelled: ${result.detail}`;
    case "not_text":
      return `not returned: ${result.detail}; only text content is supported`;
    case "too_many_redirects":
    case "bad_redirect":
      return `redirect failed: ${result.detail}`;
    case "redirect_not_followed":
      return `redirect not followed: ${result.detail}`;
    case "invalid_request":
      return `invalid request: ${result.detail}`;
    case "network_error":
      return `network error: ${result.detail}`;
    default: {
      const unreachable: never = result;
      return unreachable;
    }
  }
}

function parseInput(input: unknown): HttpFetchInput | string {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return "expected an object";
  const record = input as Record<string, unknown>;
  const unknownKey = Object.keys(record).find((key) => !["url", "method", "body", "headers"].includes(key));
  if (unknownKey !== undefined) return `unknown property "${unknownKey}"`;
  const { url, method, body, headers } = record;
  if (typeof url !== "string") return "url must be a string";
  if (method !== undefined && method !== "GET" && method !== "POST") return 'method must be "GET" or "POST"';
  if (body !== undefined && typeof body !== "string") return "body must be a string";
  if (body !== undefined && method !== "POST") return "body is only sent with POST";
  if (typeof body === "string" && body.length > HTTP_FETCH_MAX_REQUEST_BODY_CHARS) {
    return `body is longer than ${HTTP_FETCH_MAX_REQUEST_BODY_CHARS} characters`;
  }
  let headerRecord: Record<string, string> | undefined;
  if (headers !== undefined) {
    if (typeof headers !== "object" || headers === null || Array.isArray(headers)) return "headers must be an object";
    const entries = Object.entries(headers);
    if (entries.length > HTTP_FETCH_MAX_HEADERS) return `at most ${HTTP_FETCH_MAX_HEADERS} headers`;
    if (entries.some(([, value]) => typeof value !== "string")) return "header values must be strings";
    headerRecord = Object.fromEntries(entries) as Record<string, string>;
  }
  return { url, method, body, headers: headerRecord };
}

/** Keeps the result within the tenant's limit, saying so, without splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n[output cut at ${max} characters]`;
  const withMarker = max > marker.length;
  let end = withMarker ? max - marker.length : max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end) + (withMarker ? marker : "");
}
