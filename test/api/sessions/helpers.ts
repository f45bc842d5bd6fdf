/**
 * Helpers for the session route tests: callers with real platform JWTs, sessions created
 * through the public API, and polling a session until its run settles.
 */
import { expect } from "vitest";
import type { Message, Session, SessionStatus, ToolCall } from "../../../src/session-config/types";
import type { Scope } from "../../../src/auth/principal";
import { call, callJson } from "../../support/api";
import { bearer, freshTenant } from "../../support/tokens";

export const READ_WRITE: readonly Scope[] = ["sessions:read", "sessions:write"];

export interface Caller {
  tenantId: string;
  subject: string;
  headers: Record<string, string>;
}

export async function caller(tenantId = freshTenant(), scopes: readonly Scope[] = READ_WRITE, subject = "user-1"): Promise<Caller> {
  return { tenantId, subject, headers: await bearer({ tenantId, scopes, subject }) };
}

/** POST /v1/sessions, expecting 201; returns the Session. */
export async function createSession(who: Caller, body: Record<string, unknown> = {}): Promise<Session> {
  const res = await callJson("/v1/sessions", "POST", body, who.headers);
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Session;
}

export async function getJson<T>(who: Caller, path: string): Promise<T> {
  const res = await call(path, { headers: who.headers });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

export function post(who: Caller, path: string, body?: unknown): Promise<Response> {
  if (body === undefined) return call(path, { method: "POST", headers: who.headers });
  return callJson(path, "POST", body, who.headers);
}

/** Polls GET /v1/sessions/{id} until the status is one of `statuses`. */
export async function waitForStatus(who: Caller, id: string, statuses: SessionStatus[], timeoutMs = 8_000): Promise<Session> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const session = await getJson<Session>(who, `/v1/sessions/${id}`);
    if (statuses.includes(session.status)) return session;
    if (Date.now() > deadline) throw new Error(`session ${id} stayed ${session.status}, wanted ${statuses.join(" or ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function messagesOf(who: Caller, id: string): Promise<Message[]> {
  return (await getJson<{ data: Message[] }>(who, `/v1/sessions/${id}/messages?limit=200`)).data;
}

export async function toolCallsOf(who: Caller, id: string): Promise<ToolCall[]> {
  return (await getJson<{ data: ToolCall[] }>(who, `/v1/sessions/${id}/tool-calls`)).data;
}

/** Cancels a session that may still be running; a finished one answers 409, which is fine here. */
export async function cancelQuietly(who: Caller, id: string): Promise<void> {
  const res = await post(who, `/v1/sessions/${id}/cancel`);
  expect([200, 409]).toContain(res.status);
  await res.body?.cancel();
}

export const text = (t: string) => ({ type: "text", text: t });
export const toolUse = (id: string, name: string, input: unknown = {}) => ({ type: "tool_use", id, name, input });
export const OBJECT_SCHEMA = { type: "object", properties: {} };
