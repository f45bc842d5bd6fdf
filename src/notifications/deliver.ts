/**
 * One attempt to deliver a notification: the URL checked again by the address guard and the
 * tenant's allowed origins, the body signed like a webhook tool call (timestamp + HMAC with every
 * valid secret, newest first), the event id as `Idempotency-Key`. Only a 2xx answer delivers;
 * redirects are not followed. A refused URL fails for good, anything else may pass.
 */
import { isOriginAllowed } from "../egress/allowed-origins";
import { safeFetch } from "../egress/safe-fetch";
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, signCallBody, TIMESTAMP_HEADER } from "../egress/call-signature";
import { checkTenantUrl } from "../egress/tenant-url";

/** A receiver should answer at once and do its work afterwards. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Only the status of the answer counts; a little of its text is kept to show why it failed. */
export const DELIVERY_MAX_ANSWER_BYTES = 1024;
const ERROR_TEXT_CHARS = 300;
/** Names the event type without parsing the body. */
export const EVENT_TYPE_HEADER = "X-Webhook-Event";

export interface DeliveryRequest {
  url: string;
  eventId: string;
  eventType: string;
  /** The notification as JSON text, exactly as signed. */
  body: string;
}

export interface DeliveryContext {
  /** Newest first: the current secret, then the previous one while its grace period lasts. */
  secrets: readonly string[];
  allowedOrigins: readonly string[] | null;
  allowPrivateUrls: boolean;
  now: number;
  fetchImpl?: typeof fetch;
}

export type AttemptResult =
  | { ok: true; status: number }
  /** `final`: trying again cannot help (the URL is refused). */
  | { ok: false; final: boolean; status: number | null; error: string };

/** The signed headers of one attempt; the timestamp is fresh on every attempt. */
export async function deliveryHeaders(request: DeliveryRequest, secrets: readonly string[], now: number): Promise<Record<string, string>> {
  const timestamp = Math.floor(now / 1000);
  return {
    "content-type": "application/json",
    [IDEMPOTENCY_HEADER]: request.eventId,
    [EVENT_TYPE_HEADER]: request.eventType,
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: await signCallBody(secrets, timestamp, request.body),
  };
}

export async function attemptDelivery(request: DeliveryRequest, context: DeliveryContext): Promise<AttemptResult> {
  const target = checkTenantUrl(request.url, { allowPrivateUrls: context.allowPrivateUrls });
  if (!target.ok) return { ok: false, final: true, status: null, error: `refused: ${target.message}` };
  // The tenant may have narrowed its origins since the endpoint or the session was created.
  if (!isOriginAllowed(target.url, context.allowedOrigins)) {
    return {
      ok: false,
      final: true,
      status: null,
      error: `refused: the origin ${target.url.origin} is not in the tenant's webhook_origins`,
    };
  }
  const result = await safeFetch(
    target.url.href,
    { method: "POST", headers: await deliveryHeaders(request, context.secrets, context.now), body: request.body },
    {
      allowPrivate: context.allowPrivateUrls,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBytes: DELIVERY_MAX_ANSWER_BYTES,
      maxRedirects: 0,
      textOnly: false,
      fetchImpl: context.fetchImpl,
    },
  );
  if (!result.ok && result.reason === "too_many_redirects")
    return { ok: false, final: false, status: null, error: "answered with a redirect, which is not followed" };
  if (!result.ok) return { ok: false, final: result.reason === "refused", status: null, error: `${result.reason}: ${result.detail}` };
  if (result.status >= 200 && result.status < 300) return { ok: true, status: result.status };
  const text = result.body.trim().slice(0, ERROR_TEXT_CHARS);
  return { ok: false, final: false, status: result.status, error: `answered ${result.status}${text ? `: ${text}` : ""}` };
}
