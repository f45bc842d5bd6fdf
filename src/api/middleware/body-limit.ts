/**
 * Caps request bodies. Before authentication the cap is the platform default
 * (`DEFAULT_LIMITS.max_request_bytes`); once a principal is admitted it is that tenant's
 * `max_request_bytes`. A declared `Content-Length` is refused up front; a body without one is
 * counted as it streams, so no handler ever buffers more than the cap.
 */
import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "../context";
import type { Limits } from "../../limits";
import { ApiError, problemJson } from "../errors";

/**
 * The largest `max_request_bytes` a tenant can be given (see `limitsSchema`): a declared length
 * above it is refused before authentication, whoever the caller turns out to be.
 */
export const PLATFORM_MAX_REQUEST_BYTES = 100 * 1024 * 1024;

/** Contexts whose body went over the cap while being read; see `bodyLimitExceeded`. */
const exceeded = new WeakSet<object>();

/**
 * Whether this request's body was cut off at the cap. Readers turn a failed read into their own
 * errors (the JSON validator answers "malformed JSON"), so `onError` asks here first.
 */
export function bodyLimitExceeded(c: AppContext): boolean {
  return exceeded.has(c);
}

/** The cap that applies now: the tenant's once authenticated, else the platform default. */
export function currentBodyCap(c: AppContext): number {
  const limits = c.get("limits") as Limits | undefined;
  return limits?.max_request_bytes ?? c.var.config.defaultLimits.max_request_bytes;
}

/** Refuses a declared `Content-Length` above `maxBytes`. */
export function enforceDeclaredLength(c: AppContext, maxBytes: number): void {
  const declared = declaredLength(c.req.header("Content-Length"));
  if (declared !== null && declared > maxBytes) throw tooLarge(maxBytes);
}

export function bodyLimit(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    if (raw.body === null) return next();
    enforceDeclaredLength(c, PLATFORM_MAX_REQUEST_BYTES);

    let received = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        // Read at each chunk, not once: authentication raises or lowers the cap after this
        // middleware has run but before any handler reads the body.
        if (received > currentBodyCap(c)) {
          exceeded.add(c);
          controller.error(tooLarge(currentBodyCap(c)));
          return;
        }
        controller.enqueue(chunk);
      },
    });
    c.req.raw = new Request(raw, { body: raw.body.pipeThrough(counter) });
    await next();
    if (exceeded.has(c) && c.res.status !== 413) c.res = problemJson(c, payloadTooLarge(c));
  };
}

/** The 413 for this request, naming the cap that applied. */
export function payloadTooLarge(c: AppContext): ApiError {
  return tooLarge(currentBodyCap(c));
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `The request body is larger than ${maxBytes} bytes.`);
}

/** A well-formed decimal `Content-Length`, else null (the runtime rejects malformed ones anyway). */
function declaredLength(header: string | undefined): number | null {
  if (header === undefined || !/^\d{1,16}$/.test(header)) return null;
  return Number(header);
}
