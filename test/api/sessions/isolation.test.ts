/**
 * The ownership rules as an attacker meets them: another tenant's session ids, and another
 * member's sessions within a tenant, answer exactly like sessions that do not exist.
 */
import { describe, expect, it } from "vitest";
import type { Session } from "../../../src/session-config/types";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { caller, type Caller, createSession, getJson, toolCallsOf, toolUse, waitForStatus, OBJECT_SCHEMA } from "./helpers";

type Attempt = [name: string, method: string, path: (id: string) => string, body?: unknown];

const ATTEMPTS: Attempt[] = [
  ["read", "GET", (id) => `/v1/sessions/${id}`],
  ["list messages", "GET", (id) => `/v1/sessions/${id}/messages`],
  ["add a message", "POST", (id) => `/v1/sessions/${id}/messages`, { input: "hijack" }],
  ["list tool calls", "GET", (id) => `/v1/sessions/${id}/tool-calls`],
  ["approve", "POST", (id) => `/v1/sessions/${id}/tool-calls/toolu_victim/approve`],
  ["deny", "POST", (id) => `/v1/sessions/${id}/tool-calls/toolu_victim/deny`, { reason: "no" }],
  ["give output", "POST", (id) => `/v1/sessions/${id}/tool-calls/toolu_victim/output`, { output: "forged" }],
  ["pause", "POST", (id) => `/v1/sessions/${id}/pause`],
  ["resume", "POST", (id) => `/v1/sessions/${id}/resume`],
  ["cancel", "POST", (id) => `/v1/sessions/${id}/cancel`],
  ["delete", "DELETE", (id) => `/v1/sessions/${id}`],
];

function attempt(who: Caller, method: string, path: string, body: unknown): Promise<Response> {
  return body === undefined ? call(path, { method, headers: who.headers }) : callJson(path, method, body, who.headers);
}

/** A victim session waiting for a client tool's output: every control route has something to act on. */
async function victimSession(owner: Caller): Promise<Session> {
  const model = mockModel(uniqueKey("model"));
  await model.script({ reply: { content: [toolUse("toolu_victim", "ask", {})] } });
  const session = await createSession(owner, {
    input: "start",
    model: model.key,
    tools: [{ type: "client", name: "ask", description: "ask the user", input_schema: OBJECT_SCHEMA, requires_approval: true }],
  });
  return waitForStatus(owner, session.id, ["waiting_approval"]);
}

async function expectUntouched(owner: Caller, victim: Session): Promise<void> {
  const now = await getJson<Session>(owner, `/v1/sessions/${victim.id}`);
  expect(now.status).toBe("waiting_approval");
  expect(now.updated_at).toBe(victim.updated_at);
  expect((await toolCallsOf(owner, victim.id))[0]!.status).toBe("waiting_approval");
}

describe("another tenant's session", () => {
  it.each(ATTEMPTS)("answers 404 to %s, exactly as for a missing session", async (_name, method, path, body) => {
    const owner = await caller(undefined, ["sessions:read", "sessions:write"], "victim");
    // Same subject name and full tenant rights in its own tenant: only the tenant differs.
    const attacker = await caller(undefined, ["tenant:admin"], "victim");
    const victim = await victimSession(owner);

    const res = await attempt(attacker, method, path(victim.id), body);
    const missing = await attempt(attacker, method, path("ses_AAAAAAAAAAAAAAAAAAAAAAAA"), body);
    expect(res.status).toBe(404);
    expect(missing.status).toBe(404);
    expect((await readProblem(res)).detail).toBe((await readProblem(missing)).detail);
    await expectUntouched(owner, victim);
  });
});

describe("another member's session in the same tenant", () => {
  it.each(ATTEMPTS)("answers 404 to %s without tenant:admin", async (_name, method, path, body) => {
    const tenantId = freshTenant();
    const owner = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const other = await caller(tenantId, ["sessions:read", "sessions:write"], "mallory");
    const victim = await victimSession(owner);

    const res = await attempt(other, method, path(victim.id), body);
    expect(res.status).toBe(404);
    await readProblem(res);
    await expectUntouched(owner, victim);
  });

  it("is visible to and controllable by a tenant:admin of that tenant", async () => {
    const tenantId = freshTenant();
    const owner = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const admin = await caller(tenantId, ["tenant:admin"], "boss");
    const victim = await victimSession(owner);

    expect((await getJson<Session>(admin, `/v1/sessions/${victim.id}`)).id).toBe(victim.id);
    expect(await toolCallsOf(admin, victim.id)).toHaveLength(1);
    const cancelled = await call(`/v1/sessions/${victim.id}/cancel`, { method: "POST", headers: admin.headers });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as Session).status).toBe("cancelled");
  });
});
