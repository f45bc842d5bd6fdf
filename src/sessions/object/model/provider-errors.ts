/**
 * How every provider's failure becomes a `ModelError`: one mapping for all providers, so what a
 * tenant reads in `session.error` cannot drift between them. A tenant sees the status and the
 * provider's error type only; the provider's own text and the runtime's network text (which can
 * name the platform's account, host or network) go to the platform log, never into the error.
 */
import { describeError, log } from "../../../log";
import { ModelError, parseRetryAfter } from "./provider";

/** A provider's error text longer than this is cut in the platform log. */
const MAX_LOGGED_ERROR_CHARS = 2_000;
/** Error types are short identifiers (`invalid_request_error`, `rate_limit_exceeded`); anything else is not shown. */
const ERROR_TYPE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** A provider whose key the platform lacks; the variable's name is the operator's business, not the tenant's. */
export function notConfiguredError(): ModelError {
  return new ModelError("the model provider is not configured", false);
}

/** Pure: the error text a tenant may see, e.g. "model provider answered 400 (invalid_request_error)". */
export function publicProviderError(status: number, type: string | null): string {
  return type ? `model provider answered ${status} (${type})` : `model provider answered ${status}`;
}

/**
 * The provider's error type, when it is a plain identifier: `{ "error": { "type": ... } }`, or the
 * `code` the OpenAI-compatible servers that leave `type` out send instead.
 */
export function providerErrorType(text: string): string | null {
  try {
    return errorTypeOf((JSON.parse(text) as { error?: unknown })?.error);
  } catch {
    return null;
  }
}

/** Pure: the identifier an error object names in `type` (or `code`), as a body or a stream event carries it. */
export function errorTypeOf(error: unknown): string | null {
  if (typeof error !== "object" || error === null) return null;
  const { type, code } = error as { type?: unknown; code?: unknown };
  for (const named of [type, code]) {
    if (typeof named === "string" && ERROR_TYPE_PATTERN.test(named)) return named;
  }
  return null;
}

/** Any failure of a model call as a `ModelError`; an unexpected fault's own text is logged, not kept. */
export function asModelError(err: unknown): ModelError {
  if (err instanceof ModelError) return err;
  log("error", "model_call_fault", describeError(err));
  return new ModelError("model call failed", true);
}

/** Whether a provider's HTTP status is worth another attempt. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** A non-2xx answer whose body was read as `text`; the text is logged, never returned. */
export function httpProviderError(provider: string, response: Response, text: string, now: number): ModelError {
  const status = response.status;
  const type = providerErrorType(text);
  log("warn", "model_provider_error", { provider, status, error_type: type, message: text.slice(0, MAX_LOGGED_ERROR_CHARS) });
  return new ModelError(
    publicProviderError(status, type),
    isRetryableStatus(status),
    status,
    parseRetryAfter(response.headers.get("retry-after"), now),
  );
}

/** A call that failed before an answer: a timeout, an abort, or a network fault (its text logged only). */
export function networkProviderError(provider: string, err: unknown, signal: AbortSignal): ModelError {
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    if (reason?.name === "TimeoutError") return new ModelError("the model call timed out", true);
    return new ModelError("the model call was aborted", false);
  }
  const message = err instanceof Error ? err.message : String(err);
  log("warn", "model_network_error", { provider, message: message.slice(0, MAX_LOGGED_ERROR_CHARS) });
  return new ModelError("network error calling the model", true);
}
