/** Session titles (the first input, cut) and listing by metadata: the pure rules and the list route. */
import { describe, expect, it } from "vitest";
import { metadataFilterOf } from "../../../src/api/sessions/metadata-filter";
import { MAX_METADATA_FILTERS } from "../../../src/session-config/metadata";
import { MAX_TITLE_CHARS, sessionTitle } from "../../../src/session-config/title";
import type { Session, SessionSummary } from "../../../src/session-config/types";
import { call, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { caller, createSession, getJson, post, text, waitForStatus } from "./helpers";

interface SummaryPage {
  data: SessionSummary[];
  next_cursor: string | null;
}

describe("sessionTitle", () => {
  it.each([
    [
      "one line of the text blocks, white space made single",
      [text("  Where is\n\tmy order? "), text("It is late.")],
      "Where is my order? It is late.",
    ],
    [
      "null for an input with no text",
      [{ type: "image", source: { type: "stored", image_id: "img_x", media_type: "image/png", size_bytes: 1, width: 1, height: 1 } }],
      null,
    ],
    ["null for blank text", [text(" \n ")], null],
  ] as const)("gives %s", (_name, content, expected) => {
    expect(sessionTitle(content as never)).toBe(expected);
  });

  it(`cuts a long input to ${MAX_TITLE_CHARS} characters, the last an ellipsis, never inside a surrogate pair`, () => {
    const long = sessionTitle([{ type: "text", text: "a".repeat(MAX_TITLE_CHARS - 2) + "😀😀😀😀" }])!;
    expect(Array.from(long)).toHaveLength(MAX_TITLE_CHARS);
    expect(long.endsWith("😀…")).toBe(true);
    expect(sessionTitle([{ type: "text", text: "b".repeat(MAX_TITLE_CHARS) }])).toBe("b".repeat(MAX_TITLE_CHARS));
  });
});

describe("metadataFilterOf", () => {
  it("reads metadata[<key>] names and leaves the others alone", () => {
    expect(metadataFilterOf({ limit: ["5"], "metadata[ticket]": ["T-1"], "metadata[shop]": ["eu"] })).toEqual({
      ok: true,
      entries: { ticket: "T-1", shop: "eu" },
    });
    expect(metadataFilterOf({ status: ["idle"] })).toEqual({ ok: true, entries: null });
  });

  it.each([
    ["an empty key", { "metadata[]": ["x"] }, "query.metadata[]"],
    ["a key given twice", { "metadata[a]": ["1", "2"] }, "query.metadata[a]"],
    ["a value too long", { "metadata[a]": ["v".repeat(513)] }, "query.metadata[a]"],
    [
      "too many entries",
      Object.fromEntries(Array.from({ length: MAX_METADATA_FILTERS + 1 }, (_, i) => [`metadata[k${i}]`, ["v"]])),
      "query.metadata",
    ],
  ])("refuses %s", (_name, queries, path) => {
    const result = metadataFilterOf(queries);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors[0]?.path).toBe(path);
  });
});

describe("GET /v1/sessions: titles and metadata", () => {
  it("shows each session's first input as its title, in the list and on the session", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const created = await createSession(who, { input: "Where is\n order ord_123456?", model: model.key });
    await waitForStatus(who, created.id, ["done"]);
    const idle = await createSession(who);
    const page = await getJson<SummaryPage>(who, "/v1/sessions");
    expect(page.data.map((s) => [s.id, s.title])).toEqual(
      expect.arrayContaining([
        [created.id, "Where is order ord_123456?"],
        [idle.id, null],
      ]),
    );
    expect((await getJson<Session>(who, `/v1/sessions/${created.id}`)).title).toBe("Where is order ord_123456?");
  });

  it("gives an idle session its title with its first message, and keeps it through later ones", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, { model: model.key });
    expect((await post(who, `/v1/sessions/${session.id}/messages`, { input: "first question" })).status).toBe(202);
    await waitForStatus(who, session.id, ["done"]);
    expect((await post(who, `/v1/sessions/${session.id}/messages`, { input: "second question" })).status).toBe(202);
    await waitForStatus(who, session.id, ["done"]);
    const [row] = (await getJson<SummaryPage>(who, "/v1/sessions")).data;
    expect(row).toMatchObject({ id: session.id, title: "first question" });
  });

  it("lists the sessions holding every metadata entry asked for, page by page", async () => {
    const who = await caller();
    const a = await createSession(who, { metadata: { ticket: "T-1", shop: "eu" } });
    const b = await createSession(who, { metadata: { ticket: "T-1", shop: "us" } });
    await createSession(who, { metadata: { ticket: "T-2" } });
    await createSession(who);
    const byTicket = await getJson<SummaryPage>(who, "/v1/sessions?metadata[ticket]=T-1&limit=1");
    expect(byTicket.data).toHaveLength(1);
    const next = await getJson<SummaryPage>(who, `/v1/sessions?metadata[ticket]=T-1&limit=1&cursor=${byTicket.next_cursor}`);
    expect([...byTicket.data, ...next.data].map((s) => s.id).sort()).toEqual([a.id, b.id].sort());
    expect(next.next_cursor).toBeNull();
    const both = await getJson<SummaryPage>(
      who,
      `/v1/sessions?${new URLSearchParams({ "metadata[ticket]": "T-1", "metadata[shop]": "us" })}`,
    );
    expect(both.data.map((s) => s.id)).toEqual([b.id]);
    expect((await getJson<SummaryPage>(who, "/v1/sessions?metadata[ticket]=T-9")).data).toEqual([]);
  });

  it("finds by metadata only among the sessions the caller may see", async () => {
    const tenantId = freshTenant();
    const alice = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const bob = await caller(tenantId, ["sessions:read", "sessions:write"], "bob");
    const admin = await caller(tenantId, ["tenant:admin"], "admin");
    const hers = await createSession(alice, { metadata: { order: "o-1" } });
    const his = await createSession(bob, { metadata: { order: "o-1" } });
    expect((await getJson<SummaryPage>(alice, "/v1/sessions?metadata[order]=o-1")).data.map((s) => s.id)).toEqual([hers.id]);
    expect((await getJson<SummaryPage>(admin, "/v1/sessions?metadata[order]=o-1")).data.map((s) => s.id).sort()).toEqual(
      [hers.id, his.id].sort(),
    );
    const other = await caller(undefined, ["tenant:admin"]);
    expect((await getJson<SummaryPage>(other, "/v1/sessions?metadata[order]=o-1")).data).toEqual([]);
  });

  it("forgets an erased session's metadata", async () => {
    const who = await caller();
    const session = await createSession(who, { metadata: { order: "o-erased" } });
    expect((await call(`/v1/sessions/${session.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect((await getJson<SummaryPage>(who, "/v1/sessions?metadata[order]=o-erased")).data).toEqual([]);
  });

  it.each(["metadata[]=x", "metadata[a]=1&metadata[a]=2", `metadata[${"k".repeat(65)}]=x`, "metadata=x"])(
    "refuses ?%s with 400",
    async (query) => {
      const res = await call(`/v1/sessions?${query}`, { headers: (await caller()).headers });
      expect(res.status).toBe(400);
      expect((await readProblem(res)).errors?.[0]?.path).toMatch(/^query\.metadata/);
    },
  );
});
