/**
 * The tenant's status-webhook endpoints: a URL and the event types it receives. The gateway has
 * checked each URL with the address guard and the tenant's allowed origins and normalized it;
 * this checks the shape at the object's RPC boundary and keeps the list.
 */
import type { Page } from "../session-config/types";
import { newEndpointId } from "./ids";
import { isNotificationType, NOTIFICATION_TYPES, type NotificationType } from "./types";
import { decodeTimeIdCursor, encodeTimeIdCursor } from "../shared/cursor";
import { optionalString, requireString, toIso } from "../shared/validate";

/** Endpoints per tenant: enough for a few systems and environments; each one multiplies every notification. */
export const MAX_WEBHOOK_ENDPOINTS = 20;
export const MAX_ENDPOINT_URL_CHARS = 2_048;
export const MAX_ENDPOINT_DESCRIPTION_CHARS = 200;

export interface NotificationEndpoint {
  id: string;
  url: string;
  event_types: NotificationType[];
  description: string | null;
  created_by: string;
  created_at: string;
}

export interface NewNotificationEndpoint {
  url: string;
  event_types: NotificationType[];
  description: string | null;
  created_by: string;
}

export type CreateEndpointResult = { ok: true; endpoint: NotificationEndpoint } | { ok: false; reason: "too_many"; max: number };

interface EndpointRow extends Record<string, string | number | null> {
  id: string;
  url: string;
  event_types: string;
  description: string | null;
  created_by: string;
  created_at: number;
}

/** The shape check of the RPC boundary; throws on anything the gateway would not have sent. */
export function parseNewEndpoint(value: unknown): NewNotificationEndpoint {
  if (typeof value !== "object" || value === null) throw new TypeError("endpoint must be an object");
  const input = value as Record<string, unknown>;
  const url = requireString("url", input.url, MAX_ENDPOINT_URL_CHARS);
  if (new URL(url).href !== url) throw new TypeError("url must be a normalized URL");
  const types = input.event_types;
  if (!Array.isArray(types) || types.length === 0 || types.length > NOTIFICATION_TYPES.length || !types.every(isNotificationType)) {
    throw new TypeError("event_types must be a non-empty list of notification types");
  }
  if (new Set(types).size !== types.length) throw new TypeError("event_types must not repeat");
  return {
    url,
    event_types: types,
    description: optionalString("description", input.description, MAX_ENDPOINT_DESCRIPTION_CHARS),
    created_by: requireString("created_by", input.created_by),
  };
}

export function createEndpoint(sql: SqlStorage, endpoint: NewNotificationEndpoint, now: number): CreateEndpointResult {
  const { n } = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_endpoints`).one();
  if (n >= MAX_WEBHOOK_ENDPOINTS) return { ok: false, reason: "too_many", max: MAX_WEBHOOK_ENDPOINTS };
  const row: EndpointRow = {
    id: newEndpointId(),
    url: endpoint.url,
    // Kept in the canonical order, so a listing reads the same whatever order they were given in.
    event_types: JSON.stringify(NOTIFICATION_TYPES.filter((type) => endpoint.event_types.includes(type))),
    description: endpoint.description,
    created_by: endpoint.created_by,
    created_at: now,
  };
  sql.exec(
    `INSERT INTO webhook_endpoints (id, url, event_types, description, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    row.id,
    row.url,
    row.event_types,
    row.description,
    row.created_by,
    row.created_at,
  );
  return { ok: true, endpoint: toEndpoint(row) };
}

export function getEndpoint(sql: SqlStorage, id: string): NotificationEndpoint | null {
  const row = sql.exec<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE id = ?`, id).toArray()[0];
  return row ? toEndpoint(row) : null;
}

/** Newest first, by (created_at, id). Throws a RangeError for a cursor this module did not make. */
export function listEndpoints(sql: SqlStorage, limit: number, cursor: string | null): Page<NotificationEndpoint> {
  const after = cursor === null ? null : decodeTimeIdCursor("webhooks", cursor);
  if (cursor !== null && !after) throw new RangeError("invalid cursor");
  const rows = sql
    .exec<EndpointRow>(
      `SELECT * FROM webhook_endpoints ${after ? "WHERE (created_at, id) < (?, ?)" : ""} ORDER BY created_at DESC, id DESC LIMIT ?`,
      ...(after ? [after.ms, after.id] : []),
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toEndpoint),
    next_cursor: rows.length > limit && last ? encodeTimeIdCursor("webhooks", last.created_at, last.id) : null,
  };
}

/** Removes the endpoint and its whole delivery log; what it was still owed is not sent. */
export function deleteEndpoint(sql: SqlStorage, id: string): boolean {
  const existed = sql.exec(`DELETE FROM webhook_endpoints WHERE id = ?`, id).rowsWritten > 0;
  if (existed) sql.exec(`DELETE FROM webhook_deliveries WHERE target = ?`, id);
  return existed;
}

/** The endpoints that receive `type`. The list is short (`MAX_WEBHOOK_ENDPOINTS`), so it is read whole. */
export function subscribedEndpoints(sql: SqlStorage, type: NotificationType): NotificationEndpoint[] {
  return sql
    .exec<EndpointRow>(`SELECT * FROM webhook_endpoints ORDER BY created_at, id`)
    .toArray()
    .map(toEndpoint)
    .filter((endpoint) => endpoint.event_types.includes(type));
}

function toEndpoint(row: EndpointRow): NotificationEndpoint {
  return {
    id: row.id,
    url: row.url,
    event_types: (JSON.parse(row.event_types) as unknown[]).filter(isNotificationType),
    description: row.description,
    created_by: row.created_by,
    created_at: toIso(row.created_at),
  };
}
