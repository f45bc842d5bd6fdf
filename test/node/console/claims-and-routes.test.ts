/** The console's pure pieces: what a credential says, where an address leads, the limits form. */
import { describe, expect, it } from "vitest";
import { credentialKind, powersOf, readClaims, renewDue, RENEW_MARGIN_MS } from "../../../console/src/auth/claims";
import { fieldsToOverrides, overridesToFields } from "../../../console/src/limits";
import { endUserOf, keyNameOf } from "../../../console/src/key-names";
import { parseMetadataLines } from "../../../console/src/metadata";
import { metadataSearchText, parseMetadataSearch, parseRoute, type Route, routeHref } from "../../../console/src/route";
import { fakeJwt } from "./fake-jwt";

describe("credentials", () => {
  it.each([
    ["ak_YWNtZQ.key_0123456789abcdef01234567.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ", "api_key"],
    [
      "ak_YWNtZQ.key_0123456789abcdef01234567.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ",
      "api_key",
    ],
    ["  ak_YWNtZQ.key_0123456789abcdef01234567.secret  ", "api_key"],
    [fakeJwt({ sub: "a" }), "jwt"],
    ["ak_nodots", null],
    ["hello world", null],
    ["", null],
    ["a.b", null],
  ])("%j is %s", (input, kind) => {
    expect(credentialKind(input)).toBe(kind);
  });

  it("reads subject, scopes (scope or scp) and expiry of a JWT, and nothing of garbage", () => {
    expect(
      readClaims(fakeJwt({ sub: "alice", scope: "sessions:read agents:write memory:read tenant:admin other:thing", exp: 1_900_000_000 })),
    ).toEqual({
      subject: "alice",
      scopes: ["sessions:read", "agents:write", "memory:read", "tenant:admin"],
      expiresAt: 1_900_000_000_000,
    });
    expect(readClaims(fakeJwt({ scp: ["platform:admin"] }))).toEqual({ subject: null, scopes: ["platform:admin"], expiresAt: null });
    expect(readClaims("not.a-jwt.at-all")).toBeNull();
    expect(readClaims(`${fakeJwt({}).split(".")[0]}.${Buffer.from("[1,2]").toString("base64url")}.x`)).toBeNull();
    expect(readClaims("ak_YWNtZQ.key_0123.secret")).toBeNull();
  });

  it("grants what the platform's scope table grants", () => {
    const none = {
      read: false,
      write: false,
      agentsWrite: false,
      memoryRead: false,
      memoryWrite: false,
      tenantAdmin: false,
      platformAdmin: false,
    };
    const all = {
      read: true,
      write: true,
      agentsWrite: true,
      memoryRead: true,
      memoryWrite: true,
      tenantAdmin: true,
      platformAdmin: false,
    };
    expect(powersOf(["sessions:read"])).toEqual({ ...none, read: true });
    expect(powersOf(["sessions:write"])).toEqual({ ...none, write: true });
    expect(powersOf(["sessions:read", "agents:write"])).toEqual({ ...none, read: true, agentsWrite: true });
    // Like sessions, writing memory does not imply reading it.
    expect(powersOf(["memory:read"])).toEqual({ ...none, memoryRead: true });
    expect(powersOf(["memory:write"])).toEqual({ ...none, memoryWrite: true });
    expect(powersOf(["tenant:admin"])).toEqual(all);
    expect(powersOf(["platform:admin"])).toEqual({ ...all, platformAdmin: true });
  });

  it("renews within the margin before expiry, never for a token without expiry", () => {
    expect(renewDue(null, 0)).toBe(false);
    expect(renewDue(10 * RENEW_MARGIN_MS, 0)).toBe(false);
    expect(renewDue(RENEW_MARGIN_MS, 0)).toBe(true);
    expect(renewDue(1_000, 5_000)).toBe(true);
  });
});

describe("routes", () => {
  const routes: [string, Route][] = [
    ["", { view: "sessions", status: null, createdBy: null, cursor: null }],
    ["#/sessions?status=running&created_by=bob&cursor=abc", { view: "sessions", status: "running", createdBy: "bob", cursor: "abc" }],
    ["#/sessions/ses_123", { view: "session", id: "ses_123" }],
    ["#/agents", { view: "agents", name: null, includeArchived: false, cursor: null }],
    ["#/agents?name=triage&archived=1&cursor=c", { view: "agents", name: "triage", includeArchived: true, cursor: "c" }],
    ["#/agents/agt_1", { view: "agent", id: "agt_1", from: null, to: null }],
    ["#/agents/agt_1?from=1&to=12", { view: "agent", id: "agt_1", from: 1, to: 12 }],
    ["#/memory", { view: "memory", namespace: [], query: null, key: null }],
    ["#/memory/users.u_1?q=formal+tone", { view: "memory", namespace: ["users", "u_1"], query: "formal tone", key: null }],
    [
      "#/memory/team%40acme.a%3Ab?key=prefs%2Fv%3F1%26q%3Dx",
      { view: "memory", namespace: ["team@acme", "a:b"], query: null, key: "prefs/v?1&q=x" },
    ],
    ["#/tenants?cursor=x", { view: "tenants", cursor: "x" }],
    ["#/usage", { view: "usage", days: 30 }],
    ["#/usage?days=400", { view: "usage", days: 400 }],
    ["#/tenants/acme.eu?status=paused", { view: "tenant", tenantId: "acme.eu", status: "paused", createdBy: null, cursor: null }],
    [
      "#/sessions?metadata%5Bticket%5D=T-1&metadata%5Bshop%5D=eu",
      { view: "sessions", status: null, createdBy: null, cursor: null, metadata: { ticket: "T-1", shop: "eu" } },
    ],
    ["#/sessions/new", { view: "new_session" }],
    ["#/api-keys", { view: "api_keys" }],
    ["#/credentials", { view: "credentials", subject: null }],
    ["#/credentials?subject=user_42", { view: "credentials", subject: "user_42" }],
    ["#/webhooks", { view: "webhooks" }],
    ["#/webhooks/wh_1", { view: "webhook", id: "wh_1" }],
    ["#/schedules", { view: "schedules" }],
    ["#/schedules/sch_1", { view: "schedule", id: "sch_1" }],
    ["#/evals", { view: "evals" }],
    ["#/evals/evl_1", { view: "eval", id: "evl_1" }],
    ["#/evals/compare?a=evl_1&b=evl_2", { view: "eval_compare", a: "evl_1", b: "evl_2" }],
    ["#/datasets/dst_1", { view: "dataset", id: "dst_1" }],
    ["#/settings", { view: "settings" }],
    ["#/audit-log", { view: "audit_log", scope: "tenant", action: null, actor: null, since: null, until: null, tenantId: null }],
    [
      "#/audit-log?action=settings.updated&actor=ops-7&since=2026-12-01T00%3A00%3A00.000Z&until=2026-12-02T00%3A00%3A00.000Z",
      {
        view: "audit_log",
        scope: "tenant",
        action: "settings.updated",
        actor: "ops-7",
        since: "2026-12-01T00:00:00.000Z",
        until: "2026-12-02T00:00:00.000Z",
        tenantId: null,
      },
    ],
    [
      "#/admin/audit-log?tenant=acme.eu&action=tenant.deleted",
      { view: "audit_log", scope: "platform", action: "tenant.deleted", actor: null, since: null, until: null, tenantId: "acme.eu" },
    ],
  ];
  it.each(routes)("%j is %j and back", (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
    if (hash !== "") expect(parseRoute(routeHref(route))).toEqual(route);
  });

  it("ignores an unknown status and answers unknown places as not found", () => {
    expect(parseRoute("#/sessions?status=exploded")).toMatchObject({ view: "sessions", status: null });
    expect(parseRoute("#/nowhere")).toEqual({ view: "not_found", path: "/nowhere" });
    expect(parseRoute("#/sessions/a/b")).toMatchObject({ view: "not_found" });
    expect(parseRoute("#/sessions/%E0%A4%A")).toMatchObject({ view: "not_found" });
    expect(parseRoute("#/agents/agt_1?from=0&to=x")).toEqual({ view: "agent", id: "agt_1", from: null, to: null });
    expect(parseRoute("#/agents/agt_1?to=2.5")).toMatchObject({ to: null });
    for (const days of ["401", "0", "x", "7.5"]) expect(parseRoute(`#/usage?days=${days}`)).toEqual({ view: "usage", days: 30 });
    // The tenant's own log names no other tenant; a time that is not one is no filter.
    expect(parseRoute("#/audit-log?tenant=other&since=yesterday")).toMatchObject({ scope: "tenant", tenantId: null, since: null });
    expect(parseRoute("#/admin/audit-log/x")).toMatchObject({ view: "not_found" });
  });

  it("encodes ids and subjects, so no value can add a path segment or a parameter", () => {
    expect(routeHref({ view: "session", id: "ses_a/b?c" })).toBe("#/sessions/ses_a%2Fb%3Fc");
    expect(parseRoute(routeHref({ view: "sessions", status: null, createdBy: "a&status=done", cursor: null }))).toMatchObject({
      createdBy: "a&status=done",
      status: null,
    });
    // A memory key may hold any character: it stays one parameter, and the namespace one segment of the path.
    expect(routeHref({ view: "memory", namespace: ["users", "u/1"], query: null, key: "k&q=x/y" })).toBe(
      "#/memory/users.u%2F1?key=k%26q%3Dx%2Fy",
    );
  });
});

describe("the session search", () => {
  it("reads key=value words as metadata, and nothing else", () => {
    expect(parseMetadataSearch(" ticket=T-1  shop=eu ")).toEqual({ ticket: "T-1", shop: "eu" });
    expect(parseMetadataSearch("note=a=b")).toEqual({ note: "a=b" });
    expect(parseMetadataSearch("ticket")).toBeNull();
    expect(parseMetadataSearch("=x")).toBeNull();
    expect(parseMetadataSearch("")).toBeNull();
    expect(metadataSearchText({ ticket: "T-1", shop: "eu" })).toBe("ticket=T-1 shop=eu");
  });

  it("keeps a metadata value with & and = one parameter of the address", () => {
    const route: Route = { view: "sessions", status: null, createdBy: null, cursor: null, metadata: { q: "a&status=done" } };
    expect(parseRoute(routeHref(route))).toEqual(route);
  });
});

describe("created by", () => {
  it("names an API key's subject by the key's name, and leaves any other subject alone", () => {
    const names = { key_0123456789abcdef01234567: "billing backend" };
    expect(keyNameOf("key:key_0123456789abcdef01234567", names)).toBe("billing backend");
    expect(keyNameOf("key:key_ffffffffffffffffffffffff", names)).toBeNull();
    expect(keyNameOf("alice", names)).toBeNull();
    expect(keyNameOf("key:key_constructor", { ...names })).toBeNull();
  });

  it.each([
    ["end_user:alice", "alice"],
    ["end_user:a@b.example:x", "a@b.example:x"],
    ["end_user:", null],
    ["alice", null],
    ["key:key_0123456789abcdef01234567", null],
    ["xend_user:alice", null],
  ])("reads %j as the end user %j", (subject, endUser) => {
    expect(endUserOf(subject)).toBe(endUser);
  });

  it("keeps an end user's filter in the address as its principal", () => {
    const route: Route = { view: "sessions", status: null, createdBy: "end_user:alice@example.com", cursor: null };
    expect(routeHref(route)).toContain("created_by=end_user%3Aalice%40example.com");
    expect(parseRoute(routeHref(route))).toEqual(route);
  });
});

describe("the new session form", () => {
  it("reads key=value lines as metadata, or names the line that is not one", () => {
    expect(parseMetadataLines("ticket = T-1\n\nshop=eu")).toEqual({ ok: true, metadata: { ticket: "T-1", shop: "eu" } });
    expect(parseMetadataLines("  ")).toEqual({ ok: true, metadata: null });
    expect(parseMetadataLines("ticket=T-1\noops")).toEqual({ ok: false, line: "oops" });
  });
});

describe("the limits form", () => {
  it("shows overrides as text and empty for the defaults", () => {
    expect(overridesToFields({ max_concurrent_runs: 7, max_tokens_per_day: null })).toMatchObject({
      max_concurrent_runs: "7",
      max_tokens_per_day: "unlimited",
      max_steps_per_run: "",
    });
  });

  it("reads fields back into the overrides that replace the tenant's, or names the first bad field", () => {
    expect(
      fieldsToOverrides({
        max_concurrent_runs: " 7 ",
        max_tokens_per_day: "Unlimited",
        requests_per_minute: "1,200",
        max_steps_per_run: "",
      }),
    ).toEqual({
      ok: true,
      overrides: { max_concurrent_runs: 7, max_tokens_per_day: null, requests_per_minute: 1200 },
    });
    expect(fieldsToOverrides({ max_steps_per_run: "unlimited" })).toMatchObject({ ok: false, field: "max_steps_per_run" });
    expect(fieldsToOverrides({ max_concurrent_runs: "0" })).toMatchObject({ ok: false, field: "max_concurrent_runs" });
    expect(fieldsToOverrides({ max_concurrent_runs: "2.5" })).toMatchObject({ ok: false, field: "max_concurrent_runs" });
    expect(fieldsToOverrides({ max_schedules: "0" })).toEqual({ ok: true, overrides: { max_schedules: 0 } });
    // The daily budgets: dollars with cents, "unlimited" for none, 0 for nothing at all.
    expect(fieldsToOverrides({ max_cost_usd_per_day: "12.50", max_tokens_per_day_per_subject: "unlimited" })).toEqual({
      ok: true,
      overrides: { max_cost_usd_per_day: 12.5, max_tokens_per_day_per_subject: null },
    });
    expect(fieldsToOverrides({ max_tokens_per_day_per_subject: "0" })).toEqual({
      ok: true,
      overrides: { max_tokens_per_day_per_subject: 0 },
    });
    expect(fieldsToOverrides({ max_tokens_per_day_per_subject: "1.5" })).toMatchObject({
      ok: false,
      field: "max_tokens_per_day_per_subject",
    });
    expect(fieldsToOverrides({})).toEqual({ ok: true, overrides: {} });
  });
});
