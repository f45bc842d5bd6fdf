import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnswerDraft, type EventFrame, followEvents } from "../../sdk/src/index.ts";

/** A stand-in events endpoint: the first connection drops after two events, the next resumes. */
const seen: { lastEventId: string | undefined; authorization: string | undefined }[] = [];
let server: ReturnType<typeof createServer>;
let baseUrl: string;

function frame(id: number | null, type: string, data: unknown): string {
  return `${id === null ? "" : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify({ ...(id === null ? {} : { id }), type, data, created_at: "2030-01-01T00:00:00.000Z" })}\n\n`;
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  seen.push({ lastEventId: req.headers["last-event-id"] as string | undefined, authorization: req.headers.authorization });
  if (req.url?.includes("ses_ended")) return void res.writeHead(204).end();
  res.writeHead(200, { "content-type": "text/event-stream" });
  if (seen.length === 1) {
    res.write(frame(7, "snapshot", { status: "running" }).replace('"id":7,', ""));
    res.write(frame(8, "status", { status: "running", stop_reason: null, error: null }));
    // Dropped mid-event: the half frame must not be delivered.
    res.write('id: 9\nevent: usage\ndata: {"type":"usa');
    setTimeout(() => res.socket?.destroy(), 20);
    return;
  }
  res.write(frame(9, "usage", { steps: 1 }));
  res.write(frame(null, "end", { status: "done", stop_reason: "end_turn", error: null }));
  res.end();
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("followEvents", () => {
  it("resumes a dropped stream from the last event id, so each event arrives once, and stops at end", async () => {
    const frames: string[] = [];
    const onReconnect = () => frames.push("(reconnect)");
    for await (const frame of followEvents("ses_1", { baseUrl, credential: () => "token-1", reconnectDelayMs: 10, onReconnect }))
      frames.push(frame.type);
    expect(frames).toEqual(["snapshot", "status", "(reconnect)", "usage", "end"]);
    expect(seen.map((s) => s.lastEventId)).toEqual([undefined, "8"]);
    expect(seen.every((s) => s.authorization === "Bearer token-1")).toBe(true);
  });

  it("ends at once when the session has ended with nothing newer (204)", async () => {
    const frames = [];
    for await (const frame of followEvents("ses_ended", { baseUrl, credential: "t", after: 12 })) frames.push(frame);
    expect(frames).toEqual([]);
    expect(seen.at(-1)?.lastEventId).toBe("12");
  });
});

describe("AnswerDraft", () => {
  const at = "2030-01-01T00:00:00.000Z";
  const delta = (index: number, text: string, offset: number, kind?: "reasoning"): EventFrame => ({
    type: "delta",
    data: { index, text, offset, ...(kind ? { kind } : {}) },
    created_at: at,
  });

  it("writes deltas at their offsets, drops the blocks a delta_reset names, and clears on the saved answer", () => {
    const draft = new AnswerDraft();
    for (const frame of [delta(0, "Hmm", 0, "reasoning"), delta(1, "Stale ", 0), delta(1, "text", 6)]) draft.apply(frame);
    expect([draft.reasoning, draft.text]).toEqual(["Hmm", "Stale text"]);
    expect(draft.apply({ type: "delta_reset", data: { indices: [0, 1] }, created_at: at })).toBe(true);
    expect([draft.reasoning, draft.text]).toEqual(["", ""]);
    draft.apply(delta(0, "Fresh", 0));
    expect(draft.text).toBe("Fresh");
    draft.apply({ type: "message", id: 3, data: { seq: 2, role: "assistant", content: [], created_at: at }, created_at: at } as EventFrame);
    expect(draft.text).toBe("");
  });

  it("drops the drafts on a snapshot (a new connection) and on clear()", () => {
    const draft = new AnswerDraft();
    draft.apply(delta(0, "Dead attempt", 0));
    expect(draft.apply({ type: "snapshot", data: { status: "running" }, created_at: at } as EventFrame)).toBe(true);
    expect(draft.text).toBe("");
    draft.apply(delta(0, "Before the restart", 0));
    draft.clear();
    expect(draft.text).toBe("");
  });
});
