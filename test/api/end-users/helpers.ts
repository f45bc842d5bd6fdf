/** Helpers for the end-user tests: a backend that mints, and end users holding the tokens it mints. */
import { expect } from "vitest";
import type { Scope } from "../../../src/auth/principal";
import { callJson } from "../../support/api";
import { bearer, freshTenant } from "../../support/tokens";
import type { Caller } from "../sessions/helpers";

export const BACKEND_SCOPES: readonly Scope[] = [
  "sessions:read",
  "sessions:write",
  "agents:write",
  "memory:read",
  "memory:write",
  "end_users:issue",
];

/** A backend's token, living an hour so the tokens it mints are not cut short by it. */
export async function backend(tenantId = freshTenant(), scopes: readonly Scope[] = BACKEND_SCOPES): Promise<Caller> {
  return { tenantId, subject: "backend", headers: await bearer({ tenantId, scopes, subject: "backend", expiresIn: 3600 }) };
}

export function mint(who: Caller, body: Record<string, unknown>): Promise<Response> {
  return callJson("/v1/auth/end-user-token", "POST", body, who.headers);
}

/** An end user of `who`'s tenant, with a token minted through the API (expects 201). */
export async function endUser(who: Caller, subject: string, body: Record<string, unknown> = {}): Promise<Caller & { token: string }> {
  const res = await mint(who, { subject, ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  const { access_token: token } = (await res.json()) as { access_token: string };
  return { tenantId: who.tenantId, subject: `end_user:${subject}`, token, headers: { Authorization: `Bearer ${token}` } };
}
