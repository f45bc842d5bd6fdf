/**
 * Conditional GETs of the sessions list and of a session: an `ETag` on every answer, a 304 with
 * no body while it is current, a 200 with a new tag once anything the answer shows changed.
 */
import { describe, expect, it } from "vitest";
import { entityTag, ifNoneMatchHits, MAX_IF_NONE_MATCH_CHARS } from "../../../src/api/conditional";
import { call } from "../../support/api";
import { freshTenant } from "../../support/tokens";
import { caller, type Caller, cancelQuietly, createSession, post } from "./helpers";

const CONSOLE = "https://console.example.com";

async function get(who: Caller, path: string, tag?: string, extra: Record<string, string> = {}): Promise<Response> {
  return call(path, { headers: { ...who.headers, ...(tag ? { "If-None-Match": tag } : {}), ...extra } });
}

describe("conditional GET /v1/sessions", () => {
  it("answers 304 with no body while the page is unchanged, and 200 with a new tag once it changes", async () => {
    const who = await caller();
    await createSession(who);
    const first = await get(who, "/v1/sessions");
    expect(first.status).toBe(200);
    const tag = first.headers.get("ETag");
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(first.headers.get("Cache-Control")).toBe("private, no-cache");
    const page = (await first.json()) as { data: unknown[] };
    expect(page.data).toHaveLength(1);

    const again = await get(who, "/v1/sessions", tag!);
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("ETag")).toBe(tag);
    expect(again.headers.get("X-Request-Id")).toBeTruthy();

    await createSession(who);
    const changed = await get(who, "/v1/sessions", tag!);
    expect(changed.status).toBe(200);
    expect(changed.headers.get("ETag")).not.toBe(tag);
    expect(((await changed.json()) as { data: unknown[] }).data).toHaveLength(2);
  });

  it("tags each filter and page by its own content", async () => {
    const who = await caller();
    await createSession(who);
    const all = await get(who, "/v1/sessions");
    const idle = await get(who, "/v1/sessions?status=idle");
    const running = await get(who, "/v1/sessions?status=running", all.headers.get("ETag")!);
    expect(idle.headers.get("ETag")).toBe(all.headers.get("ETag"));
    expect(running.status).toBe(200);
    expect(await running.json()).toEqual({ data: [], next_cursor: null });
  });

  it("keeps the CORS headers on a 304, so a page on a listed origin can read it", async () => {
    const who = await caller();
    const first = await get(who, "/v1/sessions", undefined, { Origin: CONSOLE });
    expect(first.headers.get("Access-Control-Expose-Headers")).toContain("ETag");
    const again = await get(who, "/v1/sessions", first.headers.get("ETag")!, { Origin: CONSOLE });
    expect(again.status).toBe(304);
    expect(again.headers.get("Access-Control-Allow-Origin")).toBe(CONSOLE);
    expect(again.headers.get("Access-Control-Expose-Headers")).toContain("ETag");
  });

  it("never answers 304 to a tag of another tenant's different list", async () => {
    const a = await caller(freshTenant(), ["tenant:admin"]);
    const b = await caller(freshTenant(), ["tenant:admin"]);
    await createSession(a);
    const tagOfA = (await get(a, "/v1/sessions")).headers.get("ETag")!;
    const res = await get(b, "/v1/sessions", tagOfA);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [], next_cursor: null });
  });
});

describe("conditional GET /v1/sessions/{id}", () => {
  it("answers 304 until the session changes, then 200 with the new state", async () => {
    const who = await caller();
    const session = await createSession(who);
    const path = `/v1/sessions/${session.id}`;
    const first = await get(who, path);
    const tag = first.headers.get("ETag")!;
    expect(first.status).toBe(200);
    expect((await get(who, path, tag)).status).toBe(304);
    expect((await get(who, path, `"other", ${tag}`)).status).toBe(304);

    const started = await post(who, `${path}/messages`, { input: "Hello" });
    expect(started.status).toBe(202);
    const changed = await get(who, path, tag);
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as { status: string }).status).not.toBe("idle");
    await cancelQuietly(who, session.id);
  });

  it("answers 404, not 304, for a session that is not the caller's, whatever the tag", async () => {
    const owner = await caller();
    const stranger = await caller();
    const session = await createSession(owner);
    const res = await get(stranger, `/v1/sessions/${session.id}`, "*");
    expect(res.status).toBe(404);
  });
});

describe("entity tags", () => {
  it("are weak, stable for the same JSON and different for different JSON", async () => {
    expect(await entityTag('{"a":1}')).toBe(await entityTag('{"a":1}'));
    expect(await entityTag('{"a":1}')).not.toBe(await entityTag('{"a":2}'));
    expect(await entityTag("")).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
  });

  const tag = 'W/"abc"';
  it.each([
    [undefined, false],
    ["", false],
    ['W/"abc"', true],
    ['"abc"', true],
    ['"x", W/"abc"', true],
    ['"x",W/"y"', false],
    ["*", true],
    [" * ", true],
    ["abc", false],
    ['W/"ab"', false],
    ['"abc', false],
    [`${'"x", '.repeat(MAX_IF_NONE_MATCH_CHARS / 5)}${tag}`, false],
  ])('If-None-Match %j against W/"abc" hits: %s', (header, hits) => {
    expect(ifNoneMatchHits(header, tag)).toBe(hits);
  });
});
