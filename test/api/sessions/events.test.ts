/**
 * `GET /v1/sessions/{id}/events` through the gateway: both transports, URL tokens, isolation,
 * and streams closed by a key's revocation or the tenant's suspension.
 */
import { describe, expect, it } from "vitest";
import { CLOSE_CODES } from "../../../src/sessions/object/events/streams";
import { acceptsEventStream, eventCursor } from "../../../src/api/sessions/events";
import { misplacedCredential, urlCredential } from "../../../src/api/middleware/url-token";
import { call, callJson, readProblem } from "../../support/api";
import { storedTypes, type Watch, watchSocket, watchSse } from "../../support/event-client";
import { mockModel } from "../../support/mock-client";
import { bearer, freshTenant, platformToken } from "../../support/tokens";
import { caller, createSession, type Caller, text, toolUse, waitForStatus } from "./helpers";

// The operator of this file's admin calls, with a request window of its own (files share the runtime).
const OPS_TENANT = freshTenant("ops");

const TWO_STEP_RUN = ["status", "message", "message", "tool_call", "usage", "tool_result", "message", "message", "usage", "status"];

function eventsPath(id: string, query = ""): string {
  return `/v1/sessions/${id}/events${query}`;
}

async function sse(who: Caller | Record<string, string>, id: string, query = "", headers: Record<string, string> = {}): Promise<Watch> {
  const auth = "headers" in who ? (who.headers as Record<string, string>) : who;
  const res = await call(eventsPath(id, query), { headers: { ...auth, Accept: "text/event-stream", ...headers } });
  if (res.status !== 200) throw new Error(`SSE answered ${res.status}: ${await res.text()}`);
  expect(res.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
  expect(res.headers.get("X-Request-Id")).toBeTruthy();
  return watchSse(res);
}

/** A stream token asked for with `credential`, as a browser's page gets one for its URL. */
async function streamToken(credential: string): Promise<{ access_token: string; expires_in: number }> {
  const res = await call("/v1/auth/stream-token", { method: "POST", headers: { Authorization: `Bearer ${credential}` } });
  if (res.status !== 200) throw new Error(`stream-token answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { access_token: string; expires_in: number };
}

/** A WebSocket watcher with a stream token, asked for with `credential`, in its URL. */
async function socket(id: string, credential: string, query = ""): Promise<Watch> {
  const { access_token: token } = await streamToken(credential);
  const res = await call(eventsPath(id, `?access_token=${encodeURIComponent(token)}${query}`), { headers: { Upgrade: "websocket" } });
  if (res.status !== 101 || !res.webSocket) throw new Error(`WebSocket answered ${res.status}: ${await res.text()}`);
  const watch = watchSocket(res.webSocket);
  res.webSocket.accept();
  return watch;
}

async function createKey(tenantId: string, scopes: string[]): Promise<{ key: string; key_id: string }> {
  const res = await callJson("/v1/api-keys", "POST", { name: "watcher", scopes }, await bearer({ tenantId, scopes: ["tenant:admin"] }));
  expect(res.status).toBe(201);
  return (await res.json()) as { key: string; key_id: string };
}

async function exchange(apiKey: string): Promise<string> {
  const res = await call("/v1/auth/token", { method: "POST", headers: { Authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe("GET /v1/sessions/{id}/events", () => {
  it("streams a two-step run to an SSE watcher and to a WebSocket watcher with ?access_token=", async () => {
    const who = await caller();
    const model = mockModel(`events-${crypto.randomUUID()}`);
    const session = await createSession(who, { model: model.key, tools: [{ type: "builtin", name: "get_time" }] });
    const token = await platformToken({ tenantId: who.tenantId, subject: who.subject, scopes: ["sessions:read"] });
    const watches = [await sse(who, session.id), await socket(session.id, token)];
    await Promise.all(watches.map((watch) => watch.untilType("snapshot")));

    await model.script({ reply: { content: [toolUse("toolu_w", "get_time")] } }, { reply: { content: [text("noon")] } });
    const started = await callJson(`/v1/sessions/${session.id}/messages`, "POST", { input: "time?" }, who.headers);
    expect(started.status).toBe(202);
    for (const watch of watches) {
      await watch.untilClosed();
      expect(watch.types()[0]).toBe("snapshot");
      expect(storedTypes(watch)).toEqual(TWO_STEP_RUN);
      expect(watch.types().at(-1)).toBe("end");
      expect(watch.types()).toContain("delta");
    }
    expect(watches[0]!.stored()).toEqual(watches[1]!.stored());
  });

  it("resumes after Last-Event-ID, which wins over ?after=, and answers 204 once nothing is newer", async () => {
    const who = await caller();
    const model = mockModel(`events-${crypto.randomUUID()}`);
    await model.script({ reply: { content: [text("hello")] } });
    const session = await createSession(who, { model: model.key, input: "hi" });
    await waitForStatus(who, session.id, ["done"]);
    const full = await sse(who, session.id, "?after=0");
    await full.untilClosed();
    const ids = full.stored().map((f) => f.id!);

    const resumed = await sse(who, session.id, "?after=0", { "Last-Event-ID": String(ids[ids.length - 3]) });
    await resumed.untilClosed();
    expect(resumed.stored().map((f) => f.id)).toEqual(ids.slice(-2));

    const ended = await call(eventsPath(session.id), { headers: { ...who.headers, "Last-Event-ID": String(ids.at(-1)) } });
    expect(ended.status).toBe(204);
  });

  it("refuses an API key in ?access_token= with 401, without looking it up", async () => {
    const tenantId = freshTenant();
    const { key } = await createKey(tenantId, ["sessions:read", "sessions:write"]);
    const res = await call(eventsPath("ses_anything", `?access_token=${encodeURIComponent(key)}`), {
      headers: { Accept: "text/event-stream" },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  });

  it("answers another tenant's session, or another subject's, with 404", async () => {
    const owner = await caller();
    const session = await createSession(owner);
    const stranger = await caller();
    const colleague = await caller(owner.tenantId, ["sessions:read"], "user-2");
    for (const who of [stranger, colleague]) {
      const res = await call(eventsPath(session.id), { headers: { ...who.headers, Accept: "text/event-stream" } });
      expect(res.status).toBe(404);
      expect((await readProblem(res)).status).toBe(404);
    }
    const { access_token: token } = await streamToken(await platformToken({ tenantId: stranger.tenantId, scopes: ["sessions:read"] }));
    const ws = await call(eventsPath(session.id, `?access_token=${token}`), { headers: { Upgrade: "websocket" } });
    expect(ws.status).toBe(404);
  });

  it("answers bad requests with 4xx problems", async () => {
    const who = await caller();
    const session = await createSession(who);
    const cases: [Record<string, string>, string, number][] = [
      [{ Accept: "application/json" }, "", 406],
      [{ "Last-Event-ID": "abc" }, "", 400],
      [{}, "?after=-1", 400],
      [{}, `?access_token=x`, 400], // a header and a URL credential at once
    ];
    for (const [headers, query, status] of cases) {
      const res = await call(eventsPath(session.id, query), { headers: { ...who.headers, ...headers } });
      expect([query, JSON.stringify(headers), res.status]).toEqual([query, JSON.stringify(headers), status]);
      await readProblem(res);
    }
  });

  it("closes a stream the moment its API key is revoked, over either transport", async () => {
    const tenantId = freshTenant();
    const { key, key_id } = await createKey(tenantId, ["sessions:read", "sessions:write"]);
    const created = await callJson("/v1/sessions", "POST", {}, { Authorization: `Bearer ${key}` });
    const session = (await created.json()) as { id: string };
    const viaToken = await socket(session.id, await exchange(key));
    const viaKey = await sse({ Authorization: `Bearer ${key}` }, session.id);
    const admin = await sse(await caller(tenantId, ["tenant:admin"], "admin"), session.id);
    await Promise.all([viaToken, viaKey, admin].map((w) => w.untilType("snapshot")));

    const revoked = await call(`/v1/api-keys/${key_id}`, {
      method: "DELETE",
      headers: await bearer({ tenantId, scopes: ["tenant:admin"] }),
    });
    expect(revoked.status).toBe(204);
    await viaToken.untilClosed(2_000);
    await viaKey.untilClosed(2_000);
    expect(viaToken.closeCode).toBe(CLOSE_CODES.credentials);
    expect(admin.closed).toBe(false);
    admin.stop();
  });

  it("closes the tenant's streams when it is suspended", async () => {
    const who = await caller();
    const session = await createSession(who);
    const token = await platformToken({ tenantId: who.tenantId, scopes: ["sessions:read"] });
    const watch = await socket(session.id, token);
    await watch.untilType("snapshot");
    const res = await call(`/v1/admin/tenants/${who.tenantId}/suspend`, {
      method: "POST",
      headers: await bearer({ tenantId: OPS_TENANT, subject: "ops-1", scopes: ["platform:admin"] }),
    });
    expect(res.status).toBe(200);
    await watch.untilClosed(2_000);
    expect(watch.closeCode).toBe(CLOSE_CODES.suspended);
  });
});

describe("stream tokens", () => {
  it("are the only token ?access_token= takes, and are refused on every other route", async () => {
    const tenantId = freshTenant();
    const admin = await platformToken({ tenantId, subject: "admin", scopes: ["tenant:admin"] });
    const session = await createSession({ tenantId, subject: "admin", headers: { Authorization: `Bearer ${admin}` } });
    const { access_token: stream, expires_in } = await streamToken(admin);
    expect(expires_in).toBeLessThanOrEqual(300);

    // A token for the API as a whole, copied into a URL, is refused there.
    const general = await call(eventsPath(session.id, `?access_token=${encodeURIComponent(admin)}`), {
      headers: { Accept: "text/event-stream" },
    });
    expect(general.status).toBe(401);
    // The stream token watches, in the URL or in the header.
    const watched = await call(eventsPath(session.id, `?access_token=${encodeURIComponent(stream)}`), {
      headers: { Accept: "text/event-stream" },
    });
    expect(watched.status).toBe(200);
    await watched.body?.cancel();
    const inHeader = await call(eventsPath(session.id), { headers: { Authorization: `Bearer ${stream}`, Accept: "text/event-stream" } });
    expect(inHeader.status).toBe(200);
    await inHeader.body?.cancel();

    // Copied from a URL, it mints nothing and calls nothing else, though its holder is a tenant admin.
    const headers = { Authorization: `Bearer ${stream}` };
    const elsewhere = [
      await callJson("/v1/api-keys", "POST", { name: "stolen", scopes: ["tenant:admin"] }, headers),
      await call("/v1/auth/stream-token", { method: "POST", headers }),
      await call("/v1/auth/token", { method: "POST", headers }),
      await call("/v1/sessions", { headers }),
      await call(`/v1/sessions/${session.id}`, { headers }),
      await call(`/v1/sessions/${session.id}/cancel`, { method: "POST", headers }),
      await call("/v1/tenant", { headers }),
    ];
    expect(elsewhere.map((res) => res.status)).toEqual(elsewhere.map(() => 401));
  });

  it("never outlive the credential they were asked with", async () => {
    const tenantId = freshTenant();
    const shortLived = await platformToken({ tenantId, scopes: ["sessions:read"], expiresIn: 40 });
    expect((await streamToken(shortLived)).expires_in).toBeLessThanOrEqual(40);
    const writer = await platformToken({ tenantId, scopes: ["sessions:write"] });
    const refused = await call("/v1/auth/stream-token", { method: "POST", headers: { Authorization: `Bearer ${writer}` } });
    expect(refused.status).toBe(403);
  });

  it("from an API key that expires, like exchanged tokens, end with the key: the exchange is shorter, and an open stream closes at the key's expiry", async () => {
    const tenantId = freshTenant();
    const expiresAt = new Date(Date.now() + 4_000).toISOString();
    const res = await callJson(
      "/v1/api-keys",
      "POST",
      { name: "short", scopes: ["sessions:read", "sessions:write"], expires_at: expiresAt },
      await bearer({ tenantId, scopes: ["tenant:admin"] }),
    );
    expect(res.status).toBe(201);
    const { key, key_id } = (await res.json()) as { key: string; key_id: string };
    const exchanged = await call("/v1/auth/token", { method: "POST", headers: { Authorization: `Bearer ${key}` } });
    expect(((await exchanged.json()) as { expires_in: number }).expires_in).toBeLessThanOrEqual(4);

    // A token exchanged before exchanges were cut to the key's expiry lives on past it.
    const issuedBefore = await platformToken({
      tenantId,
      subject: `key:${key_id}`,
      scopes: ["sessions:read", "sessions:write"],
      claims: { key_id },
      expiresIn: 600,
    });
    const created = await callJson("/v1/sessions", "POST", {}, { Authorization: `Bearer ${issuedBefore}` });
    const session = (await created.json()) as { id: string };
    const viaSocket = await socket(session.id, issuedBefore);
    const viaSse = await sse({ Authorization: `Bearer ${issuedBefore}` }, session.id);
    await Promise.all([viaSocket.untilType("snapshot"), viaSse.untilType("snapshot")]);

    await viaSocket.untilClosed(8_000);
    await viaSse.untilClosed(8_000);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    expect(viaSocket.closeCode).toBe(CLOSE_CODES.credentials);
    // REST and a new stream say the same.
    expect((await call(`/v1/sessions/${session.id}`, { headers: { Authorization: `Bearer ${issuedBefore}` } })).status).toBe(401);
  });
});

describe("events route helpers", () => {
  it("takes Last-Event-ID over after, and none for a fresh watcher", () => {
    expect(eventCursor("7", "3")).toBe(7);
    expect(eventCursor(undefined, "3")).toBe(3);
    expect(eventCursor("", "3")).toBe(3);
    expect(eventCursor(undefined, undefined)).toBeNull();
  });

  it.each([
    [undefined, true],
    ["text/event-stream", true],
    ["*/*", true],
    ["text/*;q=0.5", true],
    ["application/json", false],
    ["text/event-stream;q=0", false],
  ])("Accept %s allows the stream: %s", (accept, allowed) => {
    expect(acceptsEventStream(accept)).toBe(allowed);
  });

  it("takes a URL credential on the events route only, and never an API key", () => {
    const q = (token: string) => new URLSearchParams({ access_token: token });
    expect(urlCredential("GET", "/v1/sessions/ses_1/events", q("eyJ.a.b"), false)).toEqual({
      kind: "token",
      authorization: "Bearer eyJ.a.b",
    });
    expect(urlCredential("GET", "/v1/sessions/ses_1/events", q("ak_abc.key_1.secret"), false)).toEqual({
      kind: "refused",
      reason: "api_key_in_url",
    });
    expect(urlCredential("GET", "/v1/sessions/ses_1/events", q("eyJ.a.b"), true)).toEqual({ kind: "ambiguous" });
    expect(urlCredential("GET", "/v1/sessions/ses_1", q("eyJ.a.b"), false)).toEqual({ kind: "none" });
    expect(urlCredential("POST", "/v1/sessions/ses_1/events", q("eyJ.a.b"), false)).toEqual({ kind: "none" });
  });

  it("lets a stream token onto the events route only, and nothing but a stream token into a URL", () => {
    const stream = { streamOnly: true } as const;
    expect(misplacedCredential(stream, "GET", "/v1/sessions/ses_1/events", true)).toBeNull();
    expect(misplacedCredential(stream, "GET", "/v1/sessions/ses_1/events", false)).toBeNull();
    expect(misplacedCredential(stream, "GET", "/v1/sessions/ses_1", false)).toBe("stream_token_elsewhere");
    expect(misplacedCredential(stream, "POST", "/v1/sessions/ses_1/events", false)).toBe("stream_token_elsewhere");
    expect(misplacedCredential({}, "GET", "/v1/sessions/ses_1/events", true)).toBe("url_token_not_for_streams");
    expect(misplacedCredential({}, "GET", "/v1/sessions/ses_1/events", false)).toBeNull();
  });
});
