/**
 * Every operation of the served OpenAPI document called with an end user's token holding every
 * scope an end user may hold: a route off the allowed list (src/api/end-users/allowed-routes.ts)
 * answers 403 or 404, so a new route is closed to end users the day it is added; a route on it
 * is never refused by the gate; and every entry of the list names a served route.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { END_USER_ROUTES } from "../../../src/api/end-users/allowed-routes";
import { tenantIndexStub } from "../../../src/objects";
import { call } from "../../support/api";
import { securedOperations } from "../../support/document-operations";
import { backend, endUser } from "./helpers";

const GATE_DETAIL = "An end user's token cannot call this route.";
/** The memory item routes need their item named in the query to reach the gate's check. */
const ITEM_QUERY_ROUTES = new Set(["/v1/memory/items", "/v1/memory/items/versions"]);

async function operations() {
  return (await securedOperations()).map((o) =>
    ITEM_QUERY_ROUTES.has(o.template) ? { ...o, path: `${o.path}?namespace=shared&key=k` } : o,
  );
}

describe("an end user's token on every route", () => {
  it("is refused by the gate (403) everywhere but the allowed list, and never by the gate on it", async () => {
    const who = await backend();
    // A request for each route: more in a minute than an end user's window (end_user_requests_per_minute) takes.
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { end_user_requests_per_minute: 1_000 });
    const user = await endUser(who, "alice", { scopes: ["sessions:read", "sessions:write", "memory:read", "memory:write"] });
    const all = await operations();
    expect(all.length).toBeGreaterThan(50);
    const allowed = new Set(END_USER_ROUTES);
    const results: string[] = [];
    for (const { name, method, path, op } of all) {
      const init: RequestInit = op.requestBody
        ? { method, headers: { ...user.headers, "Content-Type": "application/json" }, body: "{}" }
        : { method, headers: user.headers };
      const res = await call(path, init);
      const body = await res.text();
      if (allowed.has(name)) {
        expect(body.includes(GATE_DETAIL), `${name} is allowed but the gate refused it`).toBe(false);
        expect(res.status, name).not.toBe(401);
      } else {
        // Refused by the gate itself: a 404 from a sample id would also pass a route the gate missed.
        expect(res.status, `${name} answered ${res.status}: ${body.slice(0, 200)}`).toBe(403);
        expect(body.includes(GATE_DETAIL), `${name} was refused, but not by the gate: ${body.slice(0, 200)}`).toBe(true);
      }
      results.push(`${name} ${res.status}`);
    }
    // The allowed list names only routes that exist, and the table saw each of them.
    const served = new Set(all.map((operation) => operation.name));
    expect(END_USER_ROUTES.filter((route) => !served.has(route))).toEqual([]);
    expect(results.length).toBe(all.length);
  }, 60_000);

  it("cannot be put in a URL except as a stream token on the events route", async () => {
    const who = await backend();
    const user = await endUser(who, "alice");
    const res = await call(`/v1/sessions?access_token=${user.token}`);
    expect(res.status).toBe(401);
    const stream = await call("/v1/auth/stream-token", { method: "POST", headers: user.headers });
    expect(stream.status).toBe(200);
  });
});
