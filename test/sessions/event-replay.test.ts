/**
 * A replay is read from storage a page at a time and sent as it goes: a watcher that has not read
 * anything yet is cut once `MAX_REPLAY_BYTES` are queued for it, having cost the session object
 * only the pages it was sent, and resumes from the last id it got, seeing every event once.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { CLOSE_CODES, MAX_REPLAY_BYTES, REPLAY_PAGE_EVENTS } from "../../src/sessions/object/events/streams";
import { buildStreamRequest } from "../../src/sessions/object/events/stream-request";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import type { SessionObject } from "../../src/sessions/object/session-object";
import { newTestSession, sessionInit, type TestSession, unwrap } from "../support/agent-session";
import { openSocket, openSse } from "../support/agent-stream";
import type { Frame, Watch } from "../support/event-client";
import { insertEvents } from "../support/event-rows";

/** Messages of this many characters, each with its event: 200 of them are about 3 MiB of replay. */
const MESSAGE_CHARS = 16 * 1024;
const EVENTS = 200;

async function sessionWithBigLog(): Promise<TestSession> {
  const t = newTestSession();
  unwrap(await t.stub.create(sessionInit(t), null));
  await runInDurableObject(t.stub, (_i, state) => {
    const at = new Date().toISOString();
    for (let n = 1; n <= EVENTS; n++) {
      const { seq } = state.storage.sql
        .exec(
          "INSERT INTO messages (role, content, created_at) VALUES (?, ?, ?) RETURNING seq",
          "user",
          JSON.stringify([{ type: "text", text: `${n} ${"x".repeat(MESSAGE_CHARS)}` }]),
          at,
        )
        .one();
      insertEvents(state.storage.sql, [["message", { seq }, at]]);
    }
  });
  return t;
}

const bytesOf = (frames: Frame[]) => frames.reduce((sum, frame) => sum + JSON.stringify(frame).length, 0);

/** Reconnects after each cut from the last id seen, as a client does, until the replay is whole. */
async function readWhole(t: TestSession, open: (cursor: number) => Promise<Watch>): Promise<{ openings: Watch[]; ids: number[] }> {
  const openings: Watch[] = [];
  const ids: number[] = [];
  let cursor = 0;
  while (ids.length < EVENTS && openings.length < 20) {
    const watch = await open(cursor);
    await watch.until((w) => w.closed || w.stored().length + ids.length >= EVENTS, "the replay's end or a cut");
    openings.push(watch);
    ids.push(...watch.stored().map((frame) => frame.id!));
    cursor = ids.at(-1) ?? cursor;
    watch.stop();
  }
  return { openings, ids };
}

describe("a replay of a log larger than one opening may queue", () => {
  it("over a WebSocket is cut after about MAX_REPLAY_BYTES with tooSlow, and resumed from the last id it is whole, each event once", async () => {
    const t = await sessionWithBigLog();
    const { openings, ids } = await readWhole(t, (cursor) => openSocket(t, { cursor }));
    expect(ids).toEqual(Array.from({ length: EVENTS }, (_, n) => n + 1));
    const first = openings[0]!;
    expect(first.closeCode).toBe(CLOSE_CODES.tooSlow);
    expect(bytesOf(first.stored())).toBeGreaterThanOrEqual(MAX_REPLAY_BYTES);
    expect(bytesOf(first.stored())).toBeLessThan(MAX_REPLAY_BYTES + 2 * MESSAGE_CHARS);
    expect(openings.length).toBeGreaterThanOrEqual(3);
  });

  it("over SSE reads from storage only the pages it sends before the cut, and resumes whole", async () => {
    const t = await sessionWithBigLog();
    const rowsRead = await runInDurableObject(t.stub, async (instance: SessionObject, state) => {
      const exec = state.storage.sql.exec.bind(state.storage.sql);
      const eventRows: number[] = [];
      vi.spyOn(state.storage.sql, "exec").mockImplementation((query: string, ...bindings: unknown[]) => {
        const cursor = exec(query, ...bindings);
        if (!/FROM event_batches WHERE last_id >/.test(query)) return cursor;
        const rows = cursor.toArray();
        eventRows.push(rows.length);
        return Object.assign(rows.values(), { toArray: () => rows }) as unknown as ReturnType<typeof exec>;
      });
      const grant = { keyId: null, expiresAt: Date.now() + 60_000 };
      const response = await instance.fetch(
        buildStreamRequest({ mode: "sse", cursor: 0, grant, caps: { perSession: BUILTIN_DEFAULT_LIMITS.max_streams_per_session } }),
      );
      await response.body?.cancel();
      vi.restoreAllMocks();
      return eventRows;
    });
    // About 1 MiB of 16 KiB messages is some 64 events: two pages of 50, never the whole log.
    expect(Math.max(...rowsRead)).toBeLessThanOrEqual(REPLAY_PAGE_EVENTS);
    expect(rowsRead.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(
      Math.ceil(MAX_REPLAY_BYTES / MESSAGE_CHARS / REPLAY_PAGE_EVENTS + 1) * REPLAY_PAGE_EVENTS,
    );

    const { openings, ids } = await readWhole(t, (cursor) => openSse(t, { cursor }));
    expect(ids).toEqual(Array.from({ length: EVENTS }, (_, n) => n + 1));
    expect(openings.length).toBeGreaterThanOrEqual(3);
  });
});
