/** The tenant index's status-webhook calls: the signing secrets, the notifications session objects hand over, endpoints and their delivery log. */
import type { AuditContext } from "../../audit/types";
import type { Page } from "../../session-config/types";
import {
  listDeliveries,
  pruneDeliveries,
  redeliver,
  type RedeliverResult,
  requireDeliveryStatus,
  type NotificationDelivery,
} from "../../notifications/delivery-store";
import {
  type CreateEndpointResult,
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  parseNewEndpoint,
  type NotificationEndpoint,
} from "../../notifications/endpoint-store";
import { parseNotificationBatch, takeNotifications as takeBatch } from "../../notifications/intake";
import type { NotificationAck } from "../../notifications/types";
import type * as T from "../types";
import { optionalCursor, requirePageLimit, requireString } from "../../shared/validate";
import { readSigningSecret, rotateWebhookSecret as rotateSecret, signingSecrets } from "../signing-secret";
import { loadConfig } from "../../config";
import { deliverDue } from "../../notifications/dispatcher";
import type { IndexHost } from "./host";

export function webhookSecret(host: IndexHost): T.SigningSecret {
  return readSigningSecret(host.kv, Date.now());
}

export function rotateWebhookSecret(host: IndexHost, tenantId: string, by?: AuditContext): T.SigningSecret {
  return host.transaction(() => {
    const rotated = rotateSecret(host.kv, Date.now());
    host.audit(by, { action: "webhook_secret.rotated", target: { type: "tenant", id: tenantId } });
    return rotated;
  });
}

/** The alarm's pass over the due deliveries (dispatcher.ts), then retention for the receivers it settled. */
export async function deliverNotifications(host: IndexHost, tenantId: string): Promise<void> {
  const config = loadConfig(host.env);
  const pass = await deliverDue(
    host.sql,
    tenantId,
    (now) => ({
      secrets: signingSecrets(host.kv, now),
      allowedOrigins: host.config().settings.webhook_origins,
      allowPrivateUrls: config.allowPrivateUrls,
      now,
    }),
    config.notifyRetryScale,
  );
  if (pass.settledTargets.length > 0) pruneDeliveries(host.sql, Date.now(), pass.settledTargets);
}

export function callSigning(host: IndexHost): T.CallSigning {
  return { secrets: signingSecrets(host.kv, Date.now()), webhook_origins: host.config().settings.webhook_origins };
}

/** Checks a hand-over of notifications and makes its deliveries, to be sent from the alarm. */
export async function takeNotifications(host: IndexHost, tenantId: string, batch: unknown): Promise<NotificationAck> {
  const parsed = parseNotificationBatch(tenantId, batch);
  const now = Date.now();
  const intake = host.transaction(() => {
    const taken = takeBatch(host.sql, parsed, now);
    if (taken.deliveries > 0) pruneDeliveries(host.sql, now, taken.targets);
    return taken;
  });
  if (intake.deliveries > 0) await host.wakeSoon();
  return { deliveries: intake.deliveries };
}

export function createWebhookEndpoint(host: IndexHost, endpoint: T.NewNotificationEndpoint, by?: AuditContext): CreateEndpointResult {
  const parsed = parseNewEndpoint(endpoint);
  return host.transaction(() => {
    const result = createEndpoint(host.sql, parsed, Date.now());
    if (result.ok) {
      const { id, url, event_types, description } = result.endpoint;
      host.audit(by, { action: "webhook.created", target: { type: "webhook", id }, details: { url, event_types, description } });
    }
    return result;
  });
}

export function listWebhookEndpoints(host: IndexHost, input: T.PageInput): Page<NotificationEndpoint> {
  return listEndpoints(host.sql, requirePageLimit(input.limit), optionalCursor(input.cursor));
}

export function deleteWebhookEndpoint(host: IndexHost, endpointId: string, by?: AuditContext): boolean {
  const id = requireString("endpointId", endpointId);
  return host.transaction(() => {
    const existed = deleteEndpoint(host.sql, id);
    if (existed) host.audit(by, { action: "webhook.deleted", target: { type: "webhook", id } });
    return existed;
  });
}

export function listWebhookDeliveries(host: IndexHost, endpointId: string, input: T.DeliveryListInput): Page<NotificationDelivery> | null {
  const id = requireString("endpointId", endpointId);
  if (!getEndpoint(host.sql, id)) return null;
  const status = input.status == null ? null : requireDeliveryStatus(input.status);
  return listDeliveries(host.sql, id, status, requirePageLimit(input.limit), optionalCursor(input.cursor));
}

export async function redeliverWebhook(
  host: IndexHost,
  endpointId: string,
  deliveryId: string,
  by?: AuditContext,
): Promise<RedeliverResult> {
  const id = requireString("endpointId", endpointId);
  const delivery = requireString("deliveryId", deliveryId);
  if (!getEndpoint(host.sql, id)) return { ok: false, reason: "not_found" };
  const result = host.transaction(() => {
    const made = redeliver(host.sql, id, delivery, Date.now());
    if (made.ok)
      host.audit(by, {
        action: "delivery.redelivered",
        target: { type: "delivery", id: made.delivery.id },
        details: { endpoint_id: id, redelivery_of: delivery },
      });
    return made;
  });
  if (result.ok) await host.wakeSoon();
  return result;
}
