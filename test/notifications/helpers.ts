/**
 * Helpers for the status-webhook tests: a tenant admin and a session writer of one fresh tenant,
 * endpoints registered through the API, and the notifications a mock hook received, checked
 * against the tenant's signing secrets.
 */
import { expect } from "vitest";
import type { Notification } from "../../src/notifications/types";
import type { Caller } from "../api/sessions/helpers";
import { caller, getJson, post } from "../api/sessions/helpers";
import type { RecordedRequest } from "../support/mock-client";
import { callJson } from "../support/api";
import { freshTenant } from "../support/tokens";

export interface Tenant {
  tenantId: string;
  admin: Caller;
  writer: Caller;
}

export async function tenant(): Promise<Tenant> {
  const tenantId = freshTenant("notify");
  return {
    tenantId,
    admin: await caller(tenantId, ["tenant:admin"], "admin-1"),
    writer: await caller(tenantId, ["sessions:read", "sessions:write"], "user-1"),
  };
}

export interface Endpoint {
  id: string;
  url: string;
  event_types: string[];
}

export async function registerEndpoint(
  admin: Caller,
  url: string,
  eventTypes: string[],
  extra: Record<string, unknown> = {},
): Promise<Endpoint> {
  const res = await callJson("/v1/tenant/webhooks", "POST", { url, event_types: eventTypes, ...extra }, admin.headers);
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Endpoint;
}

export interface Delivery {
  id: string;
  endpoint_id: string | null;
  event_id: string;
  event_type: string;
  session_id: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  next_attempt_at: string | null;
  response_status: number | null;
  error: string | null;
  redelivery_of: string | null;
}

export async function deliveries(admin: Caller, endpointId: string, query = ""): Promise<Delivery[]> {
  return (await getJson<{ data: Delivery[] }>(admin, `/v1/tenant/webhooks/${endpointId}/deliveries?limit=200${query}`)).data;
}

export function redeliver(admin: Caller, endpointId: string, deliveryId: string): Promise<Response> {
  return post(admin, `/v1/tenant/webhooks/${endpointId}/deliveries/${deliveryId}/redeliver`);
}

/** The notifications in the recorded requests, in arrival order. */
export function notificationsOf(requests: readonly RecordedRequest[]): Notification[] {
  return requests.map((request) => request.body as Notification);
}

/** Types of the notifications for one session, in arrival order. */
export function typesFor(requests: readonly RecordedRequest[], sessionId: string): string[] {
  return notificationsOf(requests)
    .filter((n) => n.session.id === sessionId)
    .map((n) => n.type);
}

/** HMAC-SHA256 of `<timestamp>.<body>` under `secret`, as the README tells receivers to compute it. */
export async function expectedSignature(secret: string, timestamp: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${body}`)));
  return `v1=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Whether `request` carries a valid signature of its exact body under `secret`. */
export async function signedWith(request: RecordedRequest, secret: string): Promise<boolean> {
  const timestamp = request.headers["x-webhook-timestamp"] ?? "";
  const given = (request.headers["x-webhook-signature"] ?? "").split(",").map((part) => part.trim());
  return given.includes(await expectedSignature(secret, timestamp, request.body_text));
}

export async function webhookSecret(admin: Caller): Promise<string> {
  return (await getJson<{ secret: string }>(admin, "/v1/tenant/webhook-secret")).secret;
}

/** Polls until `probe` returns a value; fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function expectNoDuplicates(ids: readonly string[]): void {
  expect(new Set(ids).size, `repeated: ${ids.join(", ")}`).toBe(ids.length);
}
