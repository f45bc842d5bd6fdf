/**
 * Answers the served document used not to list, each sent for real and looked up in the
 * document: the status under the operation, with the answer's media type under that status.
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import { call, callJson } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";
import { archive, author, createAgent } from "./agents/helpers";
import { caller, createSession } from "./sessions/helpers";

type Document = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };

let served: Promise<Document> | undefined;
const documentOf = () => (served ??= call("/openapi.json").then((res) => res.json() as Promise<Document>));

/** Whether the document lists `res` (its status and media type) for `method` `template`; throws naming what it lacks. */
async function expectDocumented(method: string, template: string, res: Response): Promise<void> {
  const operation = (await documentOf()).paths[template]?.[method.toLowerCase()];
  expect(operation, `${method} ${template}`).toBeDefined();
  const response = operation!.responses[String(res.status)];
  expect(response, `${method} ${template} ${res.status}`).toBeDefined();
  const mediaType = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (mediaType !== "") expect(Object.keys(response!.content ?? {}), `${method} ${template} ${res.status}`).toContain(mediaType);
  await res.body?.cancel();
}

describe("statuses the document lists", () => {
  it("404 for a session of an agent that does not exist", async () => {
    const who = await author();
    const res = await callJson("/v1/sessions", "POST", { agent: "agt_0000000000000000000000", input: "hi" }, who.headers);
    expect(res.status).toBe(404);
    await expectDocumented("POST", "/v1/sessions", res);
  });

  it("409 for deleting an alias of an archived agent", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "retired" });
    expect((await archive(who, agent.id)).status).toBe(204);
    const res = await call(`/v1/agents/${agent.id}/aliases/stable`, { method: "DELETE", headers: who.headers });
    expect(res.status).toBe(409);
    await expectDocumented("DELETE", "/v1/agents/{agent_id}/aliases/{alias}", res);
  });

  it("400 for a GET with a body on the public routes", async () => {
    for (const path of ["/health", "/openapi.json", "/.well-known/jwks.json"]) {
      const res = await call(path, { headers: { "Content-Length": "7" } });
      expect(res.status, path).toBe(400);
      await expectDocumented("GET", path, res);
    }
  });

  it("413 for a declared body over the cap on every POST that takes none", async () => {
    const tenantId = freshTenant();
    const who = await caller(tenantId, ["sessions:read", "sessions:write", "tenant:admin"]);
    const session = await createSession(who, {});
    const ops = await bearer({ tenantId: freshTenant("ops"), scopes: ["platform:admin"] });
    const over = "x".repeat(BUILTIN_DEFAULT_LIMITS.max_request_bytes + 1);
    const cases: [string, string, Record<string, string>][] = [
      ["/v1/sessions/{id}/cancel", `/v1/sessions/${session.id}/cancel`, who.headers],
      ["/v1/sessions/{id}/pause", `/v1/sessions/${session.id}/pause`, who.headers],
      ["/v1/sessions/{id}/resume", `/v1/sessions/${session.id}/resume`, who.headers],
      ["/v1/auth/stream-token", "/v1/auth/stream-token", who.headers],
      ["/v1/tenant/webhook-secret", "/v1/tenant/webhook-secret", who.headers],
      ["/v1/tenant/webhooks/{id}/deliveries/{delivery_id}/redeliver", "/v1/tenant/webhooks/whe_x/deliveries/dlv_x/redeliver", who.headers],
      ["/v1/admin/tenants/{tenant_id}/suspend", `/v1/admin/tenants/${tenantId}/suspend`, ops],
      ["/v1/admin/tenants/{tenant_id}/unsuspend", `/v1/admin/tenants/${tenantId}/unsuspend`, ops],
      ["/v1/mcp", "/v1/mcp", who.headers],
    ];
    for (const [template, path, headers] of cases) {
      const res = await call(path, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: over });
      expect(res.status, template).toBe(413);
      await expectDocumented("POST", template, res);
    }
  });
});

describe("POST /v1/mcp: JSON-RPC errors, as the document lists them", () => {
  const ACCEPT = "application/json, text/event-stream";
  const rpc = (headers: Record<string, string>, body: string, accept = ACCEPT) =>
    call("/v1/mcp", { method: "POST", headers: { ...headers, "Content-Type": "application/json", Accept: accept }, body });

  it("answers an empty batch with a JSON-RPC Invalid Request, not 202", async () => {
    const who = await author();
    const res = await rpc(who.headers, "[]");
    expect(res.status).toBe(400);
    expect(await res.clone().json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.any(String) } });
    await expectDocumented("POST", "/v1/mcp", res);
  });

  it("documents the JSON-RPC errors of a body that is not JSON-RPC and of an Accept the transport refuses", async () => {
    const who = await author();
    for (const res of [
      await rpc(who.headers, "{"),
      await rpc(who.headers, '{"hello":1}'),
      await rpc(who.headers, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', "application/json"),
    ]) {
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(((await res.clone().json()) as { jsonrpc: string }).jsonrpc).toBe("2.0");
      await expectDocumented("POST", "/v1/mcp", res);
    }
  });
});
