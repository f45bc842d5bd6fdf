/**
 * Outbound HTTP for tools (and for the images a caller gives by URL): every hop checked by the
 * URL guard, redirects followed by hand, a deadline, a byte cap on the body, and results
 * instead of exceptions for expected failures.
 */
import { FRAMING_HEADERS } from "./framing-headers";
import { deadline } from "../shared/deadline";
import { checkUrl, describeRefusal, type UrlRefusal } from "./url-guard";
import { type EgressCredential } from "./credentials";
import { credentialHeaders } from "./credential-header";

export interface SafeFetchInit {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /**
   * Added on a hop only when that hop's origin is in its `allowedOrigins` and the chain has not
   * left the first hop's origin (see `credentialHeaders`); it replaces a header of the same name.
   */
  credential?: EgressCredential;
}

export interface SafeFetchOptions {
  allowPrivate: boolean;
  /** Checked on every hop, so a redirect cannot leave them (an https-only caller stays https); http and https when omitted. */
  allowedSchemes?: readonly string[];
  /** Covers the whole exchange: every hop and the body. */
  timeoutMs: number;
  /** Bytes of body kept; the rest is not read. */
  maxBytes: number;
  maxRedirects: number;
  /** Refuse bodies that are not text (see `isTextContentType`). */
  textOnly: boolean;
  fetchImpl?: typeof fetch;
}

export type SafeFetchFailure =
  | "refused"
  | "invalid_request"
  | "bad_redirect"
  | "too_many_redirects"
  | "redirect_not_followed"
  | "not_text"
  | "timeout"
  | "aborted"
  | "network_error";

export type SafeFetchFailed =
  | { ok: false; reason: "refused"; refusal: UrlRefusal; detail: string }
  | { ok: false; reason: Exclude<SafeFetchFailure, "refused">; detail: string };

export type SafeFetchResult =
  | { ok: true; status: number; contentType: string | null; body: string; truncated: boolean; finalUrl: string; credentialSent: boolean }
  | SafeFetchFailed;

/** The same exchange with the body as bytes (cut at `maxBytes`), for binary content such as images. */
export type SafeFetchBytesResult =
  | {
      ok: true;
      status: number;
      contentType: string | null;
      bytes: Uint8Array;
      truncated: boolean;
      finalUrl: string;
      /** Whether the answering hop carried `init.credential`: only then may a 401 be answered by a refresh. */
      credentialSent: boolean;
    }
  | SafeFetchFailed;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The only headers kept once a redirect leaves the origin. A caller's other headers may carry
 * credentials of any name (`X-Api-Key`, `Private-Token`, a session header): a list of what to
 * drop always misses one, so what is kept is listed instead. These say what the client accepts,
 * never who it is. Once dropped, they stay dropped for the rest of the chain.
 */
export const CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set(["accept", "accept-language", "user-agent", "cache-control"]);

/** Dropped when a redirect turns the request into a GET without body. */
const BODY_HEADERS = ["content-type", "content-encoding", "content-language", "content-location"];

export async function safeFetch(url: string, init: SafeFetchInit, options: SafeFetchOptions): Promise<SafeFetchResult> {
  const result = await safeFetchBytes(url, init, options);
  if (!result.ok) return result;
  const { bytes, ...rest } = result;
  return { ...rest, body: decodeUtf8(result.truncated ? bytes.subarray(0, utf8Boundary(bytes)) : bytes) };
}

export async function safeFetchBytes(url: string, init: SafeFetchInit, options: SafeFetchOptions): Promise<SafeFetchBytesResult> {
  const limit = deadline(options.timeoutMs);
  try {
    return await fetchWithin(url, init, options, limit.signal);
  } finally {
    limit.clear();
  }
}

async function fetchWithin(
  url: string,
  init: SafeFetchInit,
  options: SafeFetchOptions,
  timeout: AbortSignal,
): Promise<SafeFetchBytesResult> {
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  const fetchImpl = options.fetchImpl ?? ((input, requestInit) => fetch(input, requestInit));
  const stopped = (): SafeFetchFailed | null => {
    if (init.signal?.aborted) return { ok: false, reason: "aborted", detail: "the request was cancelled" };
    if (timeout.aborted) return { ok: false, reason: "timeout", detail: `no complete answer within ${options.timeoutMs} ms` };
    return null;
  };

  let headers: Headers;
  try {
    headers = new Headers(init.headers ?? {});
  } catch {
    return { ok: false, reason: "invalid_request", detail: "a header name or value is not valid" };
  }
  for (const name of FRAMING_HEADERS) {
    if (headers.has(name)) return { ok: false, reason: "invalid_request", detail: `the header ${name} may not be set` };
  }

  let method: "GET" | "POST" = init.method;
  let body = init.body;
  let current = url;
  // Once the chain leaves the first origin the credential stays dropped, even on a hop back.
  let credential = init.credential;
  for (let hop = 0; ; hop++) {
    const halted = stopped();
    if (halted) return halted;
    const check = checkUrl(current, { allowPrivate: options.allowPrivate, allowedSchemes: options.allowedSchemes });
    if (!check.ok)
      return {
        ok: false,
        reason: "refused",
        refusal: check.reason,
        detail: describeRefusal(check.reason, current, options.allowedSchemes),
      };

    const sent = credentialHeaders(headers, credential, check.url);
    if (!sent.ok) return { ok: false, reason: "invalid_request", detail: sent.detail };
    let response: Response;
    try {
      response = await fetchImpl(check.url.href, { method, headers: sent.headers, body, redirect: "manual", signal });
    } catch {
      return stopped() ?? { ok: false, reason: "network_error", detail: `could not connect to ${check.url.host}` };
    }

    const location = response.headers.get("location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null) {
      return readResponse(response, check.url.href, sent.carried, signal, options, stopped);
    }
    await discard(response);
    if (hop >= options.maxRedirects) {
      return { ok: false, reason: "too_many_redirects", detail: `more than ${options.maxRedirects} redirects` };
    }
    let next: URL;
    try {
      next = new URL(location, check.url);
    } catch {
      return { ok: false, reason: "bad_redirect", detail: "the redirect target is not a valid URL" };
    }
    const crossOrigin = next.origin !== check.url.origin;
    // As browsers do: 303 always, and 301/302 after POST, continue as a GET without body.
    const becomesGet = response.status === 303 || (method === "POST" && (response.status === 301 || response.status === 302));
    if (crossOrigin && body !== undefined && !becomesGet) {
      // A 307 or 308 asks for the same request, body included, elsewhere. A body is never sent to
      // another origin than the one it was written for, and turning it into a GET would change
      // what was asked: the redirect goes back to the caller, who may send it there itself.
      return {
        ok: false,
        reason: "redirect_not_followed",
        detail: `${check.url.origin} answered ${response.status} with a redirect to ${next.href}; it was not followed, because a request body is never resent to another origin`,
      };
    }
    if (becomesGet) {
      method = "GET";
      body = undefined;
      for (const name of BODY_HEADERS) headers.delete(name);
    }
    if (crossOrigin) {
      headers = keepOnly(headers, CROSS_ORIGIN_HEADERS);
      credential = undefined;
    }
    current = next.href;
  }
}

function keepOnly(headers: Headers, allowed: ReadonlySet<string>): Headers {
  const kept = new Headers();
  for (const [name, value] of headers) if (allowed.has(name)) kept.set(name, value);
  return kept;
}

/** text/*, JSON, XML and their structured-syntax suffixes; a missing type is read as text. */
export function isTextContentType(contentType: string | null): boolean {
  if (contentType === null) return true;
  const essence = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  if (essence === "") return true;
  return (
    essence.startsWith("text/") ||
    essence === "application/json" ||
    essence === "application/xml" ||
    essence.endsWith("+json") ||
    essence.endsWith("+xml")
  );
}

async function readResponse(
  response: Response,
  finalUrl: string,
  credentialSent: boolean,
  signal: AbortSignal,
  options: SafeFetchOptions,
  stopped: () => SafeFetchFailed | null,
): Promise<SafeFetchBytesResult> {
  const contentType = response.headers.get("content-type");
  if (options.textOnly && !isTextContentType(contentType)) {
    await discard(response);
    return { ok: false, reason: "not_text", detail: `the response is ${contentType}, not text` };
  }
  if (!response.body)
    return { ok: true, status: response.status, contentType, bytes: new Uint8Array(0), truncated: false, finalUrl, credentialSent };

  const reader = response.body.getReader();
  // A body that stalls would otherwise hold the read forever; cancelling resolves it.
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", onAbort);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    if (signal.aborted) onAbort();
    for (;;) {
      const { done, value } = await reader.read();
      const halted = stopped();
      if (halted) return halted;
      if (done) break;
      if (size + value.byteLength > options.maxBytes) {
        chunks.push(value.subarray(0, options.maxBytes - size));
        size = options.maxBytes;
        truncated = true;
        await reader.cancel().catch(() => {});
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    return stopped() ?? { ok: false, reason: "network_error", detail: "the connection failed while reading the body" };
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
  return { ok: true, status: response.status, contentType, bytes: concat(chunks, size), truncated, finalUrl, credentialSent };
}

/** Frees the connection of a response whose body is not wanted. */
async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Where a cut body should end so that it does not split a multi-byte character. */
function utf8Boundary(bytes: Uint8Array): number {
  let end = bytes.length;
  let continuation = 0;
  while (end > 0 && continuation < 3 && ((bytes[end - 1] ?? 0) & 0xc0) === 0x80) {
    end--;
    continuation++;
  }
  if (end === 0) return bytes.length;
  const lead = bytes[end - 1] ?? 0;
  const needed = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return needed > continuation ? end - 1 : bytes.length;
}

/** Tools hand text to a model, so bytes that are not UTF-8 become U+FFFD rather than an error. */
function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder("utf-8").decode(bytes);
}
