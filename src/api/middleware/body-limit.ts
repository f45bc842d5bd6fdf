/**
 * The request body policy, applied before authentication: no body on a method that takes none,
 * and a cap on every other body. The cap is the platform default
 * (`DEFAULT_LIMITS.max_request_bytes`) until a principal is admitted, then that tenant's
 * `max_request_bytes` (with room for an image on the routes that take a run's input). A declared `Content-Length` is refused up front; a body without one is
 * counted as it streams, so no handler ever buffers more than the cap.
 */
import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "../context";
import { ApiError, problemJson } from "../errors";
import { base64Length } from "../../shared/base64";
import { type Limits, MAX_MAX_IMAGE_BYTES, MAX_MAX_REQUEST_BYTES } from "../../limits";

/**
 * The largest body any tenant can be allowed (the highest `max_request_bytes` and one image of
 * the highest `max_image_bytes`, see `limitsSchema`): a declared length above it is refused
 * before authentication, whoever the caller turns out to be.
 */
export const PLATFORM_MAX_REQUEST_BYTES = MAX_MAX_REQUEST_BYTES + base64Length(MAX_MAX_IMAGE_BYTES);

/** The routes whose body is a run's input (create a session, add a message), and so may carry images. */
const INPUT_ROUTES = [/^\/v1\/sessions$/, /^\/v1\/sessions\/[^/]+\/messages$/];

/**
 * The cap on a request's body: `max_request_bytes`, and on the routes that take a run's input,
 * room for one image of `max_image_bytes` in base64 on top. A tenant that allows 3.75 MiB images
 * can send one in the body without raising the cap on every other request; more, or larger,
 * images go by URL, which the platform fetches and which count against `max_image_bytes` only.
 */
export function bodyCapFor(limits: Pick<Limits, "max_request_bytes" | "max_image_bytes">, method: string, path: string): number {
  const takesInput = method === "POST" && INPUT_ROUTES.some((route) => route.test(path));
  return limits.max_request_bytes + (takesInput ? base64Length(limits.max_image_bytes) : 0);
}

/**
 * Methods whose requests carry no content (RFC 9110 §9.3: a body on them has no defined
 * meaning). The runtime cannot even rebuild such a request with a body, so one is refused
 * here with a 400 rather than failing later as a 500.
 */
export const METHODS_WITHOUT_BODY: ReadonlySet<string> = new Set(["GET", "HEAD", "DELETE", "OPTIONS", "TRACE"]);

/** Whether this request's body was cut off at the cap; set by the counting stream. */
export function bodyLimitExceeded(c: AppContext): boolean {
  return c.get("bodyLimitExceeded") === true;
}

/** The cap that applies now: the tenant's once authenticated, else the platform default. */
export function currentBodyCap(c: AppContext): number {
  // `limits` is unset before authentication, whatever its declared type says.
  const limits = (c.get("limits") as AppContext["var"]["limits"] | undefined) ?? c.var.config.defaultLimits;
  return bodyCapFor(limits, c.req.method, c.req.path);
}

/** Refuses a declared `Content-Length` above `maxBytes`. */
export function enforceDeclaredLength(c: AppContext, maxBytes: number): void {
  const declared = declaredLength(c.req.header("Content-Length"));
  if (declared !== null && declared > maxBytes) throw tooLarge(maxBytes);
}

/**
 * Pure: whether a request has or declares content. A declaration counts whatever the stream
 * shows: a chunked body can reach the Worker with no stream to see. `Content-Length: 0` is none.
 * Over HTTP the runtime drains a GET's chunks itself and passes neither them nor their
 * Transfer-Encoding, so such a GET is the bodiless one it became (test/e2e/edge.test.ts).
 */
export function hasBody(
  body: ReadableStream | null,
  contentLength: string | undefined,
  transferEncoding: string | undefined = undefined,
): boolean {
  if (transferEncoding !== undefined) return true;
  if (contentLength !== undefined) return contentLength !== "0";
  return body !== null;
}

export function bodyLimit(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    if (METHODS_WITHOUT_BODY.has(c.req.method)) {
      if (hasBody(raw.body, c.req.header("Content-Length"), c.req.header("Transfer-Encoding"))) {
        throw new ApiError("bad_request", `A ${c.req.method} request takes no body.`);
      }
      return next();
    }
    if (raw.body === null) return next();
    enforceDeclaredLength(c, PLATFORM_MAX_REQUEST_BYTES);

    let received = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        // Read at each chunk, not once: authentication raises or lowers the cap after this
        // middleware has run but before any handler reads the body.
        if (received > currentBodyCap(c)) {
          c.set("bodyLimitExceeded", true);
          controller.error(tooLarge(currentBodyCap(c)));
          return;
        }
        controller.enqueue(chunk);
      },
    });
    c.req.raw = new Request(raw, { body: raw.body.pipeThrough(counter) });
    await next();
    // An answer given before the body was read (a 401, a 429): the rest of the upload is read
    // and dropped, within the cap, so the connection is not cut under a client still sending,
    // which a local runtime's proxy answers with a 500 instead of the answer given.
    if (!c.req.raw.bodyUsed) await c.req.raw.body?.pipeTo(new WritableStream()).catch(() => {});
    if (bodyLimitExceeded(c) && c.res.status !== 413) c.res = problemJson(c, payloadTooLarge(c));
  };
}

/**
 * The one way gateway code reads a request body: through Hono's cache (so the JSON validator
 * after it reads the same bytes again), with a read cut off at the cap turned into the 413 it
 * is rather than whatever the reader would make of a broken stream.
 */
export async function readBody(c: AppContext): Promise<ArrayBuffer> {
  try {
    return await c.req.arrayBuffer();
  } catch (error) {
    if (bodyLimitExceeded(c)) throw payloadTooLarge(c);
    throw error;
  }
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
