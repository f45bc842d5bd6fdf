/**
 * Watching runs against a real `wrangler dev`: Server-Sent Events and WebSockets (with
 * `?access_token=`), resuming mid-run, a model stream that breaks, a `kill -9` while a client
 * watches, and the edge's refusals (an API key in a URL, another tenant, a foreign origin).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deltaText, storedTypes, type Watch, watchSocket, watchSse } from "../support/event-client";
import type { ApiClient } from "./support/api-client";
import { callTools, say, waitForFinal, waitForRequests } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

const CONSOLE = "https://console.example.com";
const STEP_TIMEOUT_MS = 30_000;
const TWO_STEP_RUN = ["status", "message", "message", "tool_call", "usage", "tool_result", "message", "message", "usage", "status"];
const GET_TIME = [{ type: "builtin" as const, name: "get_time" }];

describe("watching sessions through wrangler dev", () => {
  let stack: Stack;
  let mint: Awaited<ReturnType<typeof tokenMinter>>;

  beforeAll(async () => {
    stack = await startStack({ vars: { CORS_ORIGINS: JSON.stringify([CONSOLE]) } });
    mint = await tokenMinter(stack.platform.signingKey);
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  const eventsUrl = (id: string, query = "") => `${stack.platform.url}/v1/sessions/${id}/events${query}`;

  async function sse(token: string, id: string, headers: Record<string, string> = {}, query = ""): Promise<Watch> {
    const res = await fetch(eventsUrl(id, query), {
      headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream", ...headers },
    });
    if (res.status !== 200) throw new Error(`SSE answered ${res.status}: ${await res.text()}`);
    return watchSse(res);
  }

  /** A WebSocket watcher as a browser opens one: a stream token, asked for with `token`, in its URL. */
  async function socket(token: string, id: string, query = ""): Promise<Watch> {
    const issued = await fetch(`${stack.platform.url}/v1/auth/stream-token`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
    });
    if (issued.status !== 200) throw new Error(`stream-token answered ${issued.status}: ${await issued.text()}`);
    const { access_token: streamToken } = (await issued.json()) as { access_token: string };
    const ws = new WebSocket(eventsUrl(id, `?access_token=${encodeURIComponent(streamToken)}${query}`).replace(/^http/, "ws"));
    const watch = watchSocket(ws);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener("open", () => resolve(), { once: true });
      ws.addEventListener("close", () => reject(new Error("the WebSocket closed before it opened")), { once: true });
    });
    return watch;
  }

  async function tenant(): Promise<{ tenantId: string; client: ApiClient; token: string }> {
    const tenantId = uniqueName("watch");
    const client = await stack.client(tenantId);
    const token = await mint({ tenantId, subject: "e2e-user", scopes: ["sessions:read"] });
    return { tenantId, client, token };
  }

  it("shows a two-step run to an SSE watcher and a WebSocket watcher, text deltas first", async () => {
    const { client, token } = await tenant();
    const model = stack.mock.model(uniqueName("model"));
    const session = await client.createSession({ model: model.key, tools: GET_TIME });
    const watches = [await sse(token, session.id), await socket(token, session.id)];
    await Promise.all(watches.map((w) => w.untilType("snapshot")));

    const answer = "It is noon in Tokyo, more or less.";
    await model.script(callTools([["toolu_e2e", "get_time"]]), {
      reply: { content: [{ type: "text", text: answer }] },
      stream: { chunk_chars: 4 },
    });
    await client.expect(202, "POST", `/v1/sessions/${session.id}/messages`, { input: "what time is it?" });
    for (const watch of watches) {
      await watch.untilClosed(STEP_TIMEOUT_MS);
      expect(watch.types()[0]).toBe("snapshot");
      expect(storedTypes(watch), stack.logs()).toEqual(TWO_STEP_RUN);
      expect(watch.types().at(-1)).toBe("end");
      const last = watch.frames.findLastIndex((f) => f.type === "message");
      expect(deltaText(watch.frames.slice(0, last))).toEqual(new Map([[0, answer]]));
    }
    expect(watches[0]!.stored()).toEqual(watches[1]!.stored());
  });

  it("resumes mid-run with Last-Event-ID and with ?after=, missing nothing and repeating nothing", async () => {
    const { client, token } = await tenant();
    const model = stack.mock.model(uniqueName("model"));
    await model.script(callTools([["toolu_1", "get_time"]]), callTools([["toolu_2", "get_time"]], 1_500), say("finished", 1_500));
    const session = await client.createSession({ model: model.key, tools: GET_TIME });
    const first = await sse(token, session.id);
    await client.expect(202, "POST", `/v1/sessions/${session.id}/messages`, { input: "go" });
    await first.until((w) => w.stored().some((f) => f.type === "tool_result"), "the first tool_result", STEP_TIMEOUT_MS);
    first.stop();
    const cursor = first.lastId()!;
    await waitForRequests(model, 2, STEP_TIMEOUT_MS);

    const [byHeader, byQuery] = await Promise.all([
      resumeToEnd(cursor, (after) => sse(token, session.id, { "Last-Event-ID": String(after) })),
      resumeToEnd(cursor, (after) => socket(token, session.id, `&after=${after}`)),
    ]);
    const everything = await sse(token, session.id, {}, "?after=0");
    await everything.untilClosed(STEP_TIMEOUT_MS);
    for (const resumed of [byHeader, byQuery]) {
      expect(resumed.firstTypes, stack.logs()).not.toContain("snapshot");
      const seen = [...first.stored().filter((f) => f.id! <= cursor), ...resumed.stored];
      expect(seen, `connections: ${resumed.connections}\n${stack.logs()}`).toEqual(everything.stored());
    }
  });

  /**
   * What a client that resumes does: it reads until `end`, and when a connection is cut before
   * that (a busy machine may drop one; the contract is that a reconnect with the last id misses
   * nothing and repeats nothing) it reconnects from the last stored id it saw.
   */
  async function resumeToEnd(cursor: number, open: (after: number) => Promise<Watch>) {
    const stored: Watch["frames"] = [];
    const firstTypes: string[] = [];
    let after = cursor;
    for (let connections = 1; connections <= 3; connections++) {
      const watch = await open(after);
      // A socket's close handshake may take seconds after `end`: `end` is the stream's last word.
      await watch.until((w) => w.closed || w.types().includes("end"), "the end of the stream", STEP_TIMEOUT_MS);
      if (connections === 1) firstTypes.push(...watch.types());
      stored.push(...watch.stored());
      after = watch.lastId() ?? after;
      if (watch.types().includes("end")) {
        watch.stop();
        return { stored, firstTypes, connections };
      }
    }
    throw new Error(`no end after 3 connections; got ${JSON.stringify(stored.map((f) => f.id))}\n${stack.logs()}`);
  }

  it("saves nothing of a model stream that breaks, and the retry's answer is the one kept", async () => {
    const { client, token } = await tenant();
    const model = stack.mock.model(uniqueName("model"));
    await model.script(
      { reply: { content: [{ type: "text", text: "a broken half answer" }] }, stream: { break_after: 5 } },
      say("the whole answer"),
    );
    const session = await client.createSession({ model: model.key });
    const watch = await sse(token, session.id);
    await client.expect(202, "POST", `/v1/sessions/${session.id}/messages`, { input: "go" });
    const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);
    expect(final).toMatchObject({ status: "done", usage: { steps: 1 } });
    const history = await client.messages(session.id);
    expect(history.map((m) => m.content)).toEqual([[{ type: "text", text: "go" }], [{ type: "text", text: "the whole answer" }]]);
    await watch.untilClosed(STEP_TIMEOUT_MS);
    expect(JSON.stringify(watch.stored())).not.toContain("broken");
    expect(await model.requests()).toHaveLength(2);
  });

  it("lets a client that watched across a kill -9 reconnect and miss nothing", async () => {
    const { client, token } = await tenant();
    const model = stack.mock.model(uniqueName("model"));
    await model.script(callTools([["toolu_k", "get_time"]]), say("cut off by the kill", 60_000), say("after the restart"));
    const session = await client.createSession({ model: model.key, tools: GET_TIME });
    const before = await sse(token, session.id);
    await client.expect(202, "POST", `/v1/sessions/${session.id}/messages`, { input: "go" });
    await waitForRequests(model, 2, STEP_TIMEOUT_MS);
    // Up to the tool results message: the run now waits on the second model call.
    await before.until((w) => w.stored().length >= 7, "the first step's events", STEP_TIMEOUT_MS);

    await stack.platform.restart("SIGKILL");
    await before.untilClosed(STEP_TIMEOUT_MS);
    const after = await sse(token, session.id, { "Last-Event-ID": String(before.lastId()) });
    await after.untilClosed(STEP_TIMEOUT_MS);
    expect(after.types().at(-1)).toBe("end");
    const everything = await sse(token, session.id, {}, "?after=0");
    await everything.untilClosed(STEP_TIMEOUT_MS);
    expect([...before.stored(), ...after.stored()], stack.logs()).toEqual(everything.stored());
    expect(storedTypes(everything)).toEqual(TWO_STEP_RUN);
  });

  it("refuses an API key in the URL, another tenant's stream, and a foreign origin", async () => {
    const { tenantId, client, token } = await tenant();
    const session = await client.createSession({});
    const admin = await stack.client(tenantId, "e2e-admin", ["tenant:admin"]);
    const key = await admin.expect<{ key: string }>(201, "POST", "/v1/api-keys", { name: "backend", scopes: ["sessions:read"] });
    const inUrl = await fetch(eventsUrl(session.id, `?access_token=${encodeURIComponent(key.key)}`), {
      headers: { Accept: "text/event-stream" },
    });
    expect(inUrl.status).toBe(401);
    await inUrl.body?.cancel();

    const stranger = await mint({ tenantId: uniqueName("other"), subject: "e2e-user", scopes: ["sessions:read"] });
    const foreign = await fetch(eventsUrl(session.id), { headers: { Authorization: `Bearer ${stranger}`, Accept: "text/event-stream" } });
    expect(foreign.status).toBe(404);
    await foreign.body?.cancel();

    const evil = await fetch(eventsUrl(session.id), {
      headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream", Origin: "https://evil.example.net" },
    });
    expect(evil.status).toBe(200);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    await evil.body?.cancel();
    const listed = await fetch(eventsUrl(session.id), {
      method: "OPTIONS",
      headers: { Origin: CONSOLE, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(listed.status).toBe(204);
    expect(listed.headers.get("access-control-allow-origin")).toBe(CONSOLE);
  });
});
