/**
 * Notifications handed over by the tenant's sessions become deliveries: one per endpoint that
 * receives the type, and one for the session's notify URL, but never two to one URL (the oldest endpoint's wins). The body each receiver gets is fixed
 * here, once, so every retry and redelivery sends the same bytes under the same event id.
 */
import { EVENT_ID_PATTERN } from "./ids";
import { CREDENTIAL_PROBLEMS } from "../egress/credentials";
import { type AgentNotification, isNotificationType, type Notification, type NotificationBatch } from "./types";
import { requireIsoMs, requireString } from "../shared/validate";
import { addDelivery, notifyUrlTarget } from "./delivery-store";
import { MAX_ENDPOINT_URL_CHARS, subscribedEndpoints } from "./endpoint-store";

/** Notifications per hand-off; a session object sends at most `HANDOFF_BATCH` (100) at a time. */
export const MAX_BATCH_NOTIFICATIONS = 100;
/** A notification's JSON: the compact session view is a few KiB, tens with full metadata and many waiting calls. */
export const MAX_NOTIFICATION_BYTES = 256 * 1024;

export interface Intake {
  /** Deliveries created. */
  deliveries: number;
  /** The targets that got one, for the retention pass. */
  targets: string[];
}

/** The shape check of the RPC boundary: a bug in the caller throws, nothing is half-taken. */
export function parseNotificationBatch(tenantId: string, value: unknown): NotificationBatch {
  if (typeof value !== "object" || value === null) throw new TypeError("batch must be an object");
  const input = value as Record<string, unknown>;
  const sessionId = requireString("session_id", input.session_id);
  const notifyUrl = input.notify_url == null ? null : requireString("notify_url", input.notify_url, MAX_ENDPOINT_URL_CHARS);
  if (notifyUrl !== null && new URL(notifyUrl).href !== notifyUrl) throw new TypeError("notify_url must be a normalized URL");
  const list = input.notifications;
  if (!Array.isArray(list) || list.length > MAX_BATCH_NOTIFICATIONS)
    throw new TypeError(`notifications must be a list of at most ${MAX_BATCH_NOTIFICATIONS}`);
  const notifications = list.map((item: unknown, i): Notification | AgentNotification => {
    if (typeof item !== "object" || item === null) throw new TypeError(`notifications[${i}] must be an object`);
    const n = item as Record<string, unknown>;
    const id = requireString(`notifications[${i}].id`, n.id);
    if (!EVENT_ID_PATTERN.test(id)) throw new TypeError(`notifications[${i}].id is not an event id`);
    if (!isNotificationType(n.type)) throw new TypeError(`notifications[${i}].type is not a notification type`);
    requireIsoMs(`notifications[${i}].created_at`, n.created_at);
    if (n.tenant_id !== tenantId) throw new TypeError(`notifications[${i}] belongs to another tenant`);
    if (n.type.startsWith("agent.")) return parseAgentNotification(`notifications[${i}]`, n, sessionId, tenantId);
    const session = n.session as Record<string, unknown> | null;
    if (typeof session !== "object" || session === null || session.id !== sessionId || session.tenant_id !== tenantId) {
      throw new TypeError(`notifications[${i}].session must be this session`);
    }
    const credential = n.credential == null ? undefined : parseCredential(`notifications[${i}].credential`, n.credential);
    return {
      id,
      type: n.type,
      created_at: n.created_at as string,
      tenant_id: tenantId,
      session: session as unknown as Notification["session"],
      ...(credential ? { credential } : {}),
    };
  });
  return { session_id: sessionId, notify_url: notifyUrl, notifications };
}

/**
 * An agent's event comes from its agent store, in a batch whose `session_id` is the agent's id
 * (the deliveries' subject column): it carries `agent` and no session.
 */
function parseAgentNotification(path: string, n: Record<string, unknown>, agentId: string, tenantId: string): AgentNotification {
  const agent = n.agent as Record<string, unknown> | null;
  if (typeof agent !== "object" || agent === null || agent.id !== agentId) throw new TypeError(`${path}.agent must be this agent`);
  return {
    id: n.id as string,
    type: n.type as AgentNotification["type"],
    created_at: n.created_at as string,
    tenant_id: tenantId,
    agent: agent as unknown as AgentNotification["agent"],
  };
}

/** Names and codes only: a notification never carries a credential's value. */
function parseCredential(path: string, value: unknown): NonNullable<Notification["credential"]> {
  const c = value as Record<string, unknown>;
  if (typeof c !== "object" || c === null) throw new TypeError(`${path} must be an object`);
  const owner = c.owner === "end_user" || c.owner === "tenant" ? c.owner : null;
  const code = CREDENTIAL_PROBLEMS.find((problem) => problem === c.code);
  if (owner === null || code === undefined) throw new TypeError(`${path} must have an owner and a code`);
  const subject = c.subject == null ? undefined : requireString(`${path}.subject`, c.subject);
  return { credential: requireString(`${path}.credential`, c.credential, 64), owner, ...(subject ? { subject } : {}), code };
}

export function takeNotifications(sql: SqlStorage, batch: NotificationBatch, now: number): Intake {
  const intake: Intake = { deliveries: 0, targets: [] };
  for (const notification of batch.notifications) {
    // Only the contract's fields, in the contract's order.
    const body = JSON.stringify({
      id: notification.id,
      type: notification.type,
      created_at: notification.created_at,
      tenant_id: notification.tenant_id,
      ...("agent" in notification ? { agent: notification.agent } : { session: notification.session }),
      ...("credential" in notification && notification.credential ? { credential: notification.credential } : {}),
    });
    if (body.length > MAX_NOTIFICATION_BYTES)
      throw new RangeError(`notification ${notification.id} is larger than ${MAX_NOTIFICATION_BYTES} bytes`);
    const common = { event_id: notification.id, event_type: notification.type, session_id: batch.session_id, body };
    const receivers: { target: string; endpoint_id: string | null; url: string }[] = subscribedEndpoints(sql, notification.type).map(
      (endpoint) => ({
        target: endpoint.id,
        endpoint_id: endpoint.id,
        url: endpoint.url,
      }),
    );
    if (batch.notify_url !== null) receivers.push({ target: notifyUrlTarget(batch.notify_url), endpoint_id: null, url: batch.notify_url });
    // One delivery per URL (both stored normalized): endpoints sharing a URL, or a notify URL
    // naming one, would multiply every event and its retries at that receiver.
    const urls = new Set<string>();
    for (const receiver of receivers) {
      if (urls.has(receiver.url)) continue;
      urls.add(receiver.url);
      if (addDelivery(sql, { ...common, ...receiver }, now)) {
        intake.deliveries++;
        intake.targets.push(receiver.target);
      }
    }
  }
  return intake;
}
