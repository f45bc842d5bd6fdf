/**
 * Ids of the notification records: events (`evt_`), tenant endpoints (`wh_`) and deliveries
 * (`dlv_`), each a prefix and 18 random bytes in base64url, so they cannot be guessed or collide.
 */
export const EVENT_ID_PREFIX = "evt_";
export const ENDPOINT_ID_PREFIX = "wh_";
export const DELIVERY_ID_PREFIX = "dlv_";
const RANDOM_BYTES = 18;

export const ENDPOINT_ID_PATTERN = /^wh_[A-Za-z0-9_-]{24}$/;
export const DELIVERY_ID_PATTERN = /^dlv_[A-Za-z0-9_-]{24}$/;
export const EVENT_ID_PATTERN = /^evt_[A-Za-z0-9_-]{24}$/;

function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(RANDOM_BYTES));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return prefix + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export const newEventId = (): string => randomId(EVENT_ID_PREFIX);
export const newEndpointId = (): string => randomId(ENDPOINT_ID_PREFIX);
export const newDeliveryId = (): string => randomId(DELIVERY_ID_PREFIX);
