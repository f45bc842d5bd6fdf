/** Every session route refuses a principal without its scope, before it looks at the session. */
import { describe, expect, it } from "vitest";
import { PROBLEM_TYPE_BASE } from "../../../src/api/errors";
import type { Scope } from "../../../src/auth/principal";
import { call, callJson, readProblem } from "../../support/api";
import { freshTenant } from "../../support/tokens";
import { caller, createSession } from "./helpers";

/** Paths name the session as `{id}`; each test fills in a real one. */
type Route = [method: string, path: string, scope: Scope, body?: unknown];

const ROUTES: Route[] = [
  ["POST", "/v1/sessions", "sessions:write", {}],
  ["GET", "/v1/sessions", "sessions:read"],
  ["GET", "/v1/sessions/{id}", "sessions:read"],
  ["DELETE", "/v1/sessions/{id}", "sessions:write"],
  ["GET", "/v1/sessions/{id}/messages", "sessions:read"],
  ["POST", "/v1/sessions/{id}/messages", "sessions:write", { input: "hi" }],
  ["POST", "/v1/sessions/{id}/cancel", "sessions:write"],
  ["POST", "/v1/sessions/{id}/pause", "sessions:write"],
  ["POST", "/v1/sessions/{id}/resume", "sessions:write"],
  ["GET", "/v1/sessions/{id}/tool-calls", "sessions:read"],
  ["POST", "/v1/sessions/{id}/tool-calls/toolu_1/approve", "sessions:write"],
  ["POST", "/v1/sessions/{id}/tool-calls/toolu_1/deny", "sessions:write", {}],
  ["POST", "/v1/sessions/{id}/tool-calls/toolu_1/output", "sessions:write", { output: "x" }],
];

const OTHER: Record<string, Scope> = { "sessions:read": "sessions:write", "sessions:write": "sessions:read" };

function send(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return body === undefined ? call(path, { method, headers }) : callJson(path, method, body, headers);
}

describe("session route scopes", () => {
  it.each(ROUTES)("%s %s answers 403 without %s", async (method, path, scope, body) => {
    const tenantId = freshTenant();
    const owner = await caller(tenantId, ["sessions:read", "sessions:write"]);
    const session = await createSession(owner);
    const lacking = await caller(tenantId, [OTHER[scope]!]);
    const res = await send(method, path.replace("{id}", session.id), body, lacking.headers);
    expect(res.status).toBe(403);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}forbidden`, detail: expect.stringContaining(scope) });
  });

  it.each(ROUTES)("%s %s answers 401 without credentials", async (method, path, _scope, body) => {
    const res = await send(method, path.replace("{id}", "ses_AAAAAAAAAAAAAAAAAAAAAAAA"), body, {});
    expect(res.status).toBe(401);
  });
});
