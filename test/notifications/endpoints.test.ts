/**
 * Managing status-webhook endpoints through the API: registration with the URL guard and the
 * tenant's allowed origins, the event types, paging, the per-tenant cap, deletion, and the
 * session's own notify_url checked the same way.
 */
import { describe, expect, it } from "vitest";
import { MAX_WEBHOOK_ENDPOINTS } from "../../src/notifications/endpoint-store";
import { caller, getJson, type Caller } from "../api/sessions/helpers";
import { call, callJson, readProblem } from "../support/api";
import { freshTenant } from "../support/tokens";
import { type Endpoint, registerEndpoint, tenant } from "./helpers";

function create(admin: Caller, body: unknown): Promise<Response> {
  return callJson("/v1/tenant/webhooks", "POST", body, admin.headers);
}

async function fieldErrors(res: Response): Promise<string[]> {
  expect(res.status).toBe(400);
  return ((await readProblem(res)).errors ?? []).map((e) => e.path);
}

describe("POST /v1/tenant/webhooks", () => {
  it("registers an endpoint with its URL normalized and its types in the canonical order", async () => {
    const t = await tenant();
    const res = await create(t.admin, {
      url: "HTTPS://Hooks.Example.com:443/events",
      event_types: ["session.failed", "session.done"],
      description: "pager",
    });
    expect(res.status).toBe(201);
    const endpoint = await res.json();
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^wh_[A-Za-z0-9_-]{24}$/),
      url: "https://hooks.example.com/events",
      event_types: ["session.done", "session.failed"],
      description: "pager",
      created_by: "admin-1",
      created_at: expect.any(String),
    });
  });

  it("refuses a URL the guard refuses, unknown or repeated types, and an empty list, each on its field", async () => {
    const t = await tenant();
    expect(await fieldErrors(await create(t.admin, { url: "ftp://hooks.example.com/x", event_types: ["session.done"] }))).toEqual([
      "body.url",
    ]);
    expect(await fieldErrors(await create(t.admin, { url: "https://user:pw@hooks.example.com/x", event_types: ["session.done"] }))).toEqual(
      ["body.url"],
    );
    expect(await fieldErrors(await create(t.admin, { url: "https://hooks.example.com/x", event_types: ["session.started"] }))).toEqual([
      "body.event_types.0",
    ]);
    expect(
      await fieldErrors(await create(t.admin, { url: "https://hooks.example.com/x", event_types: ["session.done", "session.done"] })),
    ).toEqual(["body.event_types"]);
    expect(await fieldErrors(await create(t.admin, { url: "https://hooks.example.com/x", event_types: [] }))).toEqual(["body.event_types"]);
    expect(
      await fieldErrors(await create(t.admin, { url: "https://hooks.example.com/x", event_types: ["session.done"], secret: "mine" })),
    ).toEqual(["body"]);
  });

  it("holds the URL to the tenant's webhook_origins", async () => {
    const t = await tenant();
    const put = await callJson("/v1/tenant/settings", "PUT", { webhook_origins: ["https://hooks.example.com"] }, t.admin.headers);
    expect(put.status).toBe(200);
    expect(await fieldErrors(await create(t.admin, { url: "https://elsewhere.example.com/x", event_types: ["session.done"] }))).toEqual([
      "body.url",
    ]);
    expect((await create(t.admin, { url: "https://hooks.example.com/x", event_types: ["session.done"] })).status).toBe(201);
  });

  it(`allows at most ${MAX_WEBHOOK_ENDPOINTS} endpoints per tenant`, async () => {
    const t = await tenant();
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) await registerEndpoint(t.admin, `https://hooks.example.com/${i}`, ["session.done"]);
    const res = await create(t.admin, { url: "https://hooks.example.com/one-more", event_types: ["session.done"] });
    expect(res.status).toBe(409);
    expect((await readProblem(res)).detail).toContain(String(MAX_WEBHOOK_ENDPOINTS));
  });

  it("needs tenant:admin", async () => {
    const writer = await caller(freshTenant(), ["sessions:read", "sessions:write"]);
    expect((await create(writer, { url: "https://hooks.example.com/x", event_types: ["session.done"] })).status).toBe(403);
    expect((await call("/v1/tenant/webhooks", { headers: writer.headers })).status).toBe(403);
  });
});

describe("GET and DELETE /v1/tenant/webhooks", () => {
  it("lists newest first, page by page, and deletes", async () => {
    const t = await tenant();
    const made: Endpoint[] = [];
    for (let i = 0; i < 3; i++) {
      made.push(await registerEndpoint(t.admin, `https://hooks.example.com/${i}`, ["session.done"]));
      await new Promise((resolve) => setTimeout(resolve, 2)); // distinct creation times
    }
    const first = await getJson<{ data: Endpoint[]; next_cursor: string | null }>(t.admin, "/v1/tenant/webhooks?limit=2");
    expect(first.data.map((e) => e.id)).toEqual([made[2]!.id, made[1]!.id]);
    const second = await getJson<{ data: Endpoint[]; next_cursor: string | null }>(
      t.admin,
      `/v1/tenant/webhooks?limit=2&cursor=${first.next_cursor}`,
    );
    expect(second).toEqual({ data: [expect.objectContaining({ id: made[0]!.id })], next_cursor: null });

    expect((await call(`/v1/tenant/webhooks/${made[1]!.id}`, { method: "DELETE", headers: t.admin.headers })).status).toBe(204);
    expect((await call(`/v1/tenant/webhooks/${made[1]!.id}`, { method: "DELETE", headers: t.admin.headers })).status).toBe(404);
    const after = await getJson<{ data: Endpoint[] }>(t.admin, "/v1/tenant/webhooks");
    expect(after.data.map((e) => e.id)).toEqual([made[2]!.id, made[0]!.id]);
  });

  it("answers 400 for a cursor it did not make, and 404 for a malformed id", async () => {
    const t = await tenant();
    expect((await call("/v1/tenant/webhooks?cursor=bogus", { headers: t.admin.headers })).status).toBe(400);
    expect((await call("/v1/tenant/webhooks/not-an-id", { method: "DELETE", headers: t.admin.headers })).status).toBe(404);
    expect((await call("/v1/tenant/webhooks/not-an-id/deliveries", { headers: t.admin.headers })).status).toBe(404);
  });

  it("keeps each tenant's endpoints to itself", async () => {
    const mine = await tenant();
    const other = await tenant();
    const endpoint = await registerEndpoint(mine.admin, "https://hooks.example.com/mine", ["session.done"]);
    expect((await getJson<{ data: unknown[] }>(other.admin, "/v1/tenant/webhooks")).data).toEqual([]);
    expect((await call(`/v1/tenant/webhooks/${endpoint.id}/deliveries`, { headers: other.admin.headers })).status).toBe(404);
    expect((await call(`/v1/tenant/webhooks/${endpoint.id}`, { method: "DELETE", headers: other.admin.headers })).status).toBe(404);
    expect((await getJson<{ data: Endpoint[] }>(mine.admin, "/v1/tenant/webhooks")).data.map((e) => e.id)).toEqual([endpoint.id]);
  });
});

describe("a session's notify_url", () => {
  it("is stored normalized and shown on the session", async () => {
    const t = await tenant();
    const res = await callJson("/v1/sessions", "POST", { notify_url: "HTTPS://Hooks.Example.com/ses" }, t.writer.headers);
    expect(res.status).toBe(201);
    const session = (await res.json()) as { id: string; notify_url: string | null };
    expect(session.notify_url).toBe("https://hooks.example.com/ses");
    expect((await getJson<{ notify_url: string | null }>(t.writer, `/v1/sessions/${session.id}`)).notify_url).toBe(
      "https://hooks.example.com/ses",
    );
    const plain = await callJson("/v1/sessions", "POST", {}, t.writer.headers);
    expect(((await plain.json()) as { notify_url: string | null }).notify_url).toBeNull();
  });

  it("is refused like a webhook URL, and outside the tenant's webhook_origins, on its field", async () => {
    const t = await tenant();
    expect(
      await fieldErrors(await callJson("/v1/sessions", "POST", { notify_url: "ftp://hooks.example.com/x" }, t.writer.headers)),
    ).toEqual(["body.notify_url"]);
    await callJson("/v1/tenant/settings", "PUT", { webhook_origins: ["https://hooks.example.com"] }, t.admin.headers);
    expect(
      await fieldErrors(await callJson("/v1/sessions", "POST", { notify_url: "https://elsewhere.example.com/x" }, t.writer.headers)),
    ).toEqual(["body.notify_url"]);
    expect((await callJson("/v1/sessions", "POST", { notify_url: "https://hooks.example.com/x" }, t.writer.headers)).status).toBe(201);
  });
});

describe("approval_timeout_seconds", () => {
  it("is accepted on a tool that requires approval, and refused on one that does not or out of range", async () => {
    const t = await tenant();
    const ok = await callJson(
      "/v1/sessions",
      "POST",
      { tools: [{ type: "builtin", name: "get_time", requires_approval: true, approval_timeout_seconds: 60 }] },
      t.writer.headers,
    );
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { tools: unknown[] }).tools).toEqual([
      { type: "builtin", name: "get_time", requires_approval: true, approval_timeout_seconds: 60 },
    ]);
    const unneeded = await callJson(
      "/v1/sessions",
      "POST",
      { tools: [{ type: "builtin", name: "get_time", approval_timeout_seconds: 60 }] },
      t.writer.headers,
    );
    expect(await fieldErrors(unneeded)).toEqual(["body.tools.0.approval_timeout_seconds"]);
    const zero = await callJson(
      "/v1/sessions",
      "POST",
      { tools: [{ type: "builtin", name: "get_time", requires_approval: true, approval_timeout_seconds: 0 }] },
      t.writer.headers,
    );
    expect(await fieldErrors(zero)).toEqual(["body.tools.0.approval_timeout_seconds"]);
  });

  it("is taken on an MCP server that requires approval, for each tool it offers", async () => {
    const t = await tenant();
    const server = {
      type: "mcp",
      name: "docs",
      url: "https://mcp.example.com/mcp",
      requires_approval: true,
      approval_timeout_seconds: 120,
    };
    const ok = await callJson("/v1/sessions", "POST", { tools: [server] }, t.writer.headers);
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { tools: unknown[] }).tools).toEqual([server]);
    const unneeded = await callJson("/v1/sessions", "POST", { tools: [{ ...server, requires_approval: undefined }] }, t.writer.headers);
    expect(await fieldErrors(unneeded)).toEqual(["body.tools.0.approval_timeout_seconds"]);
  });
});
