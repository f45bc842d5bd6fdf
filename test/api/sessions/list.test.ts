import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../../src/session-config/types";
import { call, readProblem } from "../../support/api";
import { freshTenant } from "../../support/tokens";
import { caller, createSession, getJson } from "./helpers";

/** Sessions created in the same millisecond have no defined order between them. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

interface SummaryPage {
  data: SessionSummary[];
  next_cursor: string | null;
}

describe("GET /v1/sessions", () => {
  it("lists the caller's sessions newest first, page by page", async () => {
    const who = await caller();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await createSession(who)).id);
      await tick();
    }

    const first = await getJson<SummaryPage>(who, "/v1/sessions?limit=2");
    expect(first.data.map((s) => s.id)).toEqual([ids[2], ids[1]]);
    expect(first.data[0]).toMatchObject({ created_by: "user-1", status: "idle", stop_reason: null });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await getJson<SummaryPage>(who, `/v1/sessions?limit=2&cursor=${first.next_cursor}`);
    expect(second).toEqual({ data: [expect.objectContaining({ id: ids[0] })], next_cursor: null });
  });

  it("shows a member only its own sessions, and an admin all of the tenant's", async () => {
    const tenantId = freshTenant();
    const alice = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const bob = await caller(tenantId, ["sessions:read", "sessions:write"], "bob");
    const admin = await caller(tenantId, ["tenant:admin"], "admin");
    const mine = await createSession(alice);
    await tick();
    const theirs = await createSession(bob);

    expect((await getJson<SummaryPage>(alice, "/v1/sessions")).data.map((s) => s.id)).toEqual([mine.id]);
    expect((await getJson<SummaryPage>(bob, "/v1/sessions")).data.map((s) => s.id)).toEqual([theirs.id]);
    expect((await getJson<SummaryPage>(admin, "/v1/sessions")).data.map((s) => s.id)).toEqual([theirs.id, mine.id]);
    expect((await getJson<SummaryPage>(admin, "/v1/sessions?created_by=alice")).data.map((s) => s.id)).toEqual([mine.id]);
  });

  it("gives a member who asks for another subject's sessions an empty page", async () => {
    const tenantId = freshTenant();
    const alice = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const bob = await caller(tenantId, ["sessions:read", "sessions:write"], "bob");
    await createSession(bob);
    expect(await getJson<SummaryPage>(alice, "/v1/sessions?created_by=bob")).toEqual({ data: [], next_cursor: null });
  });

  it("never lists another tenant's sessions", async () => {
    const a = await caller(undefined, ["tenant:admin"]);
    const b = await caller(undefined, ["tenant:admin"]);
    await createSession(b);
    expect((await getJson<SummaryPage>(a, "/v1/sessions")).data).toEqual([]);
  });

  it("filters by status", async () => {
    const who = await caller();
    const idle = await createSession(who);
    expect((await getJson<SummaryPage>(who, "/v1/sessions?status=idle")).data.map((s) => s.id)).toEqual([idle.id]);
    expect((await getJson<SummaryPage>(who, "/v1/sessions?status=running")).data).toEqual([]);
  });

  it.each(["limit=0", "limit=201", "limit=abc", "cursor=not-a-cursor", "status=sleeping"])("refuses ?%s with 400", async (query) => {
    const res = await call(`/v1/sessions?${query}`, { headers: (await caller()).headers });
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.[0]?.path).toMatch(/^query\./);
  });
});
