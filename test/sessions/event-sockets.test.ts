/**
 * The lifetime of event streams on the session object: hibernation of idle WebSockets, deadlines, and
 * closing by API key. Hibernation is observed the only way the runtime shows it: workerd evicts
 * an object after 10 s without events when nothing holds it in memory (hibernatable sockets do
 * not), and the next event builds a fresh instance, which has lost anything kept on the old one.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CLOSE_CODES, MAX_SSE_BACKLOG_BYTES, SseWatcher } from "../../src/sessions/object/events/streams";
import { newTestSession, sessionInit, unwrap } from "../support/agent-session";
import { openSocket, openSse, streamResponse } from "../support/agent-stream";

/** Past workerd's eviction of an inactive object (10 s) and the SSE heartbeat (15 s), with room for a loaded machine. */
const EVICTION_WAIT_MS = 16_500;

async function idleSession() {
  const t = newTestSession();
  unwrap(await t.stub.create(sessionInit(t), null));
  return t;
}

type Marked = { eventsTestMarker?: string };

async function mark(t: ReturnType<typeof newTestSession>): Promise<void> {
  await runInDurableObject(t.stub, (instance) => {
    (instance as unknown as Marked).eventsTestMarker = "kept in memory";
  });
}

async function inspect(t: ReturnType<typeof newTestSession>) {
  return runInDurableObject(t.stub, (instance, state) => ({
    marker: (instance as unknown as Marked).eventsTestMarker ?? null,
    sockets: state.getWebSockets().length,
  }));
}

describe("idle watchers", () => {
  it(
    "on WebSockets let the object be evicted, and the next instance serves them; an SSE stream keeps it in memory",
    async () => {
      const sockets = await idleSession();
      const watches = [await openSocket(sockets), await openSocket(sockets)];
      const sse = await idleSession();
      const sseWatch = await openSse(sse);
      await Promise.all([...watches, sseWatch].map((watch) => watch.untilType("snapshot")));
      await mark(sockets);
      await mark(sse);

      await new Promise((resolve) => setTimeout(resolve, EVICTION_WAIT_MS));

      // The WebSocket session's instance is gone (its marker with it); its sockets are not.
      expect(await inspect(sockets)).toEqual({ marker: null, sockets: 2 });
      // The control: an open SSE stream (and its heartbeat timer) kept the other instance.
      expect((await inspect(sse)).marker).toBe("kept in memory");
      expect(sseWatch.comments).toBeGreaterThanOrEqual(1);
      // A keep-alive ping is answered by the runtime, not by a wake of the object.
      watches[0]!.send("ping");
      await watches[0]!.until((w) => w.texts.includes("pong"), "a pong");

      await sockets.model.script({ reply: { content: [{ type: "text", text: "after a nap" }] } });
      unwrap(await sockets.stub.start("wake up"));
      for (const watch of watches) {
        await watch.untilClosed();
        expect(watch.types().filter((type) => type === "status")).toHaveLength(2);
        expect(watch.types().at(-1)).toBe("end");
      }
      sseWatch.stop();
    },
    EVICTION_WAIT_MS + 20_000,
  );
});

describe("a stream's right to exist", () => {
  it("ends with the credential: a WebSocket through the alarm, an SSE stream through its timer", async () => {
    const t = await idleSession();
    const socket = await openSocket(t, { grant: { expiresAt: Date.now() + 1_500 } });
    const sse = await openSse(t, { grant: { expiresAt: Date.now() + 1_000 } });
    const lasting = await openSocket(t);
    await sse.untilClosed(5_000);
    await socket.untilClosed(5_000);
    expect(socket.closeCode).toBe(CLOSE_CODES.credentials);
    expect(lasting.closed).toBe(false);
    lasting.stop();
  });

  it("closes the streams of a revoked key and no other", async () => {
    const t = await idleSession();
    // The index must know the key for a stream with a key to be admitted at all.
    const refused = await streamResponse(t, "websocket", { grant: { keyId: "key_00000000000000000000000a" } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ reason: "stream_refused", why: "credentials" });

    const other = await openSocket(t);
    const sse = await openSse(t);
    await Promise.all([other.untilType("snapshot"), sse.untilType("snapshot")]);
    // Streams without a key are closed only by a suspension, or by their own key's revocation.
    expect(await t.stub.closeStreams({ keyId: "key_00000000000000000000000b" }, "credentials")).toBe(0);
    expect(other.closed).toBe(false);
    expect(await t.stub.closeStreams({ all: true }, "suspended")).toBe(2);
    await other.untilClosed();
    await sse.untilClosed();
    expect(other.closeCode).toBe(CLOSE_CODES.suspended);
  });
});

describe("an SSE watcher that does not read", () => {
  it(`is cut off once ${MAX_SSE_BACKLOG_BYTES} bytes wait for it, and can resume from the log`, async () => {
    let gone = false;
    const watcher = new SseWatcher({ keyId: null, expiresAt: Date.now() + 60_000 }, Date.now(), () => {
      gone = true;
    });
    const chunk = "x".repeat(64 * 1024);
    let sent = 0;
    while (!watcher.closed && sent < 4 * MAX_SSE_BACKLOG_BYTES) {
      watcher.send("", chunk);
      sent += chunk.length;
    }
    expect(watcher.closed).toBe(true);
    expect(gone).toBe(true);
    expect(sent).toBeGreaterThan(MAX_SSE_BACKLOG_BYTES);
    expect(sent).toBeLessThanOrEqual(MAX_SSE_BACKLOG_BYTES + 2 * chunk.length);
    // What was queued before the cut is still delivered, then the stream ends.
    const text = await new Response(watcher.body).text();
    expect(text.length).toBe(sent - chunk.length);
  });
});
