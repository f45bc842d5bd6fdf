/**
 * Every list of the served document answers a cursor it did not make with a 400 problem at
 * `query.cursor`: garbage, and a cursor of every other list (a firings cursor of another
 * schedule included), never a 500 from the store behind it.
 */
import { describe, expect, it } from "vitest";
import { type CursorList, encodeIntPairCursor, encodeKeyCursor, encodeTimeIdCursor } from "../../src/shared/cursor";
import { call, callJson, readProblem } from "../support/api";
import { mockHook, mockModel, uniqueKey } from "../support/mock-client";
import { bearer, freshTenant } from "../support/tokens";
import { caller, createSession } from "./sessions/helpers";

// The operator of this file's admin calls, with a request window of its own (files share the runtime).
const OPS_TENANT = freshTenant("ops");

interface Document {
  paths: Record<string, Record<string, { parameters?: { name?: string }[] }>>;
}

/** One cursor of each list, as its store makes them. */
const CURSORS: Record<CursorList, string> = {
  sessions: encodeTimeIdCursor("sessions", 1_700_000_000_000, "ses_x"),
  schedules: encodeTimeIdCursor("schedules", 1_700_000_000_000, "sch_x"),
  firings: encodeTimeIdCursor("firings", 1_700_000_000_000, "sch_x"),
  webhooks: encodeTimeIdCursor("webhooks", 1_700_000_000_000, "wh_x"),
  deliveries: encodeTimeIdCursor("deliveries", 1_700_000_000_000, "dlv_x"),
  api_keys: encodeTimeIdCursor("api_keys", 1_700_000_000_000, "key_x"),
  tenants: encodeKeyCursor("tenants", "acme"),
  tool_calls: encodeIntPairCursor("tool_calls", 1, 0),
  agents: encodeTimeIdCursor("agents", 1_700_000_000_000, "agt_x"),
  agent_versions: encodeKeyCursor("agent_versions", "3"),
  memory_namespaces: encodeKeyCursor("memory_namespaces", "users.u_1"),
  audit_log: encodeTimeIdCursor("audit_log", 1_700_000_000_000, "aud_x"),
  datasets: encodeTimeIdCursor("datasets", 1_700_000_000_000, "dst_x"),
  evals: encodeTimeIdCursor("evals", 1_700_000_000_000, "evl_x"),
};
const GARBAGE = [
  "!!",
  "AAAA",
  "0x10",
  btoa(JSON.stringify({ a: 1 })).replace(/=+$/, ""),
  btoa(JSON.stringify([1, "x"])).replace(/=+$/, ""),
];

/** Each list route by its document template, and the list its own cursors belong to (null: a `seq` number, not a tuple). */
const OWN: Record<string, CursorList | null> = {
  "/v1/sessions": "sessions",
  "/v1/sessions/{id}/messages": null,
  "/v1/sessions/{id}/steps": null,
  "/v1/sessions/{id}/tool-calls": "tool_calls",
  "/v1/schedules": "schedules",
  "/v1/schedules/{id}/firings": "firings",
  "/v1/tenant/webhooks": "webhooks",
  "/v1/tenant/webhooks/{id}/deliveries": "deliveries",
  "/v1/api-keys": "api_keys",
  "/v1/admin/tenants": "tenants",
  "/v1/admin/tenants/{tenant_id}/sessions": "sessions",
  "/v1/agents": "agents",
  "/v1/agents/{agent_id}/versions": "agent_versions",
  "/v1/tenant/audit-log": "audit_log",
  "/v1/admin/audit-log": "audit_log",
  "/v1/datasets": "datasets",
  "/v1/evals": "evals",
};

describe("list cursors", () => {
  it("refuses garbage and every other list's cursor on every list, with a 400", async () => {
    const document = (await (await call("/openapi.json")).json()) as Document;
    const lists = Object.entries(document.paths)
      .filter(([, operations]) => (operations.get?.parameters ?? []).some((parameter) => parameter.name === "cursor"))
      .map(([path]) => path);
    expect(lists.sort()).toEqual(Object.keys(OWN).sort());

    const tenantId = freshTenant();
    const who = await caller(tenantId, ["sessions:read", "sessions:write", "tenant:admin"]);
    const agent = (await (await callJson("/v1/agents", "POST", { name: "paged" }, who.headers)).json()) as { id: string };
    const platform = {
      Authorization: (await bearer({ tenantId: OPS_TENANT, subject: "ops-1", scopes: ["platform:admin"] })).Authorization!,
    };
    const session = await createSession(who, { model: mockModel(uniqueKey("model")).key });
    const schedule = (await (
      await callJson("/v1/schedules", "POST", { cron: "0 0 1 1 *", session: { input: "x" } }, who.headers)
    ).json()) as { id: string };
    const endpoint = (await (
      await callJson("/v1/tenant/webhooks", "POST", { url: mockHook(uniqueKey("hook")).url, event_types: ["session.done"] }, who.headers)
    ).json()) as {
      id: string;
    };
    const concrete = (template: string) =>
      template
        .replace("{tenant_id}", tenantId)
        .replace("{agent_id}", agent.id)
        .replace(
          "{id}",
          template.startsWith("/v1/sessions") ? session.id : template.startsWith("/v1/schedules") ? schedule.id : endpoint.id,
        );

    for (const template of lists) {
      const own = OWN[template]!;
      const foreign = Object.entries(CURSORS)
        .filter(([list]) => list !== own)
        .map(([, cursor]) => cursor);
      // The firings of this very schedule are its own list; another schedule's are not.
      if (own === "firings") foreign.push(encodeTimeIdCursor("firings", 1_700_000_000_000, "sch_another"));
      for (const cursor of [...foreign, ...GARBAGE]) {
        const path = `${concrete(template)}?cursor=${encodeURIComponent(cursor)}`;
        const res = await call(path, {
          headers: template === "/v1/admin/tenants" || template === "/v1/admin/audit-log" ? platform : who.headers,
        });
        expect(res.status, `${path}: ${cursor}`).toBe(400);
        expect(
          (await readProblem(res)).errors?.map((e) => e.path),
          path,
        ).toEqual(["query.cursor"]);
      }
      if (own !== null) {
        const mine = own === "firings" ? encodeTimeIdCursor("firings", 1_700_000_000_000, schedule.id) : CURSORS[own];
        const res = await call(`${concrete(template)}?cursor=${mine}`, {
          headers: template === "/v1/admin/tenants" || template === "/v1/admin/audit-log" ? platform : who.headers,
        });
        expect(res.status, `${template} with its own cursor`).toBe(200);
      }
    }
  });
});

describe("integers in a query", () => {
  it("are decimal digits only, on every list and in `after`", async () => {
    const document = (await (await call("/openapi.json")).json()) as Document;
    const lists = Object.entries(document.paths)
      .filter(([, operations]) => (operations.get?.parameters ?? []).some((parameter) => parameter.name === "limit"))
      .map(([path]) => path);
    expect(lists.length).toBeGreaterThan(8);
    const tenantId = freshTenant();
    const who = await caller(tenantId, ["sessions:read", "sessions:write", "tenant:admin"]);
    const agent = (await (await callJson("/v1/agents", "POST", { name: "paged" }, who.headers)).json()) as { id: string };
    const platform = {
      Authorization: (await bearer({ tenantId: OPS_TENANT, subject: "ops-1", scopes: ["platform:admin"] })).Authorization!,
    };
    const session = await createSession(who, { model: mockModel(uniqueKey("model")).key });
    const concrete = (template: string) => template.replace("{tenant_id}", tenantId).replace("{id}", session.id);
    const headersFor = (template: string) =>
      template === "/v1/admin/tenants" || template === "/v1/admin/audit-log" ? platform : who.headers;
    for (const template of lists) {
      for (const limit of ["0x10", "+5", "%202", "%20", "1e1", "5.0", "-1", "٣", "0b11", "Infinity"]) {
        const res = await call(`${concrete(template)}?limit=${limit}`, { headers: headersFor(template) });
        expect(res.status, `${template}?limit=${limit}`).toBe(400);
        expect((await readProblem(res)).errors?.map((e) => e.path)).toEqual(["query.limit"]);
      }
    }
    const messages = `/v1/sessions/${session.id}/messages`;
    for (const after of ["0x10", "+5", "%202"])
      expect((await call(`${messages}?after=${after}`, { headers: who.headers })).status, after).toBe(400);
    expect((await call(`${messages}?after=0&limit=5`, { headers: who.headers })).status).toBe(200);
    expect((await call(`/v1/sessions?limit=200`, { headers: who.headers })).status).toBe(200);
  });
});
