/**
 * Image inputs through the public API: base64 or a URL the platform fetches once, checked
 * (`max_image_bytes`, the type by its bytes, the model's capability), stored once per session,
 * and sent to each provider in its own format.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ImageBlock, Session } from "../../../src/session-config/types";
import { DEFAULT_MAX_IMAGE_BYTES } from "../../../src/limits";
import { sessionStub } from "../../../src/objects";
import { callJson, readProblem } from "../../support/api";
import { pngBase64, pngBlock, pngBytes, TINY_PNG_BASE64 } from "../../support/images";
import { mockModel, mockUrl, uniqueKey } from "../../support/mock-client";
import { type Caller, caller, createSession, messagesOf, post, waitForStatus } from "./helpers";
import { storedEvents } from "../../support/event-rows";

type AnthropicTurn = {
  role: string;
  content: { type: string; source?: { type: string; media_type: string; data: string }; text?: string }[];
};
type ChatTurn = { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] };

async function refused(who: Caller, body: Record<string, unknown>): Promise<{ path: string; message: string }[]> {
  const res = await callJson("/v1/sessions", "POST", body, who.headers);
  expect(res.status).toBe(400);
  return (await readProblem(res)).errors ?? [];
}

/** Rows of the session's image tables, read in its Durable Object. */
async function storedImages(who: Caller, id: string) {
  return runInDurableObject(sessionStub(env, who.tenantId, id), async (_instance, state) => {
    // The image tables are made with a session's first image; a session never given one has none.
    const made = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'images'").toArray().length > 0;
    return {
      images: made ? state.storage.sql.exec("SELECT id, media_type, size_bytes, width, height FROM images").toArray() : [],
      chunks: made ? state.storage.sql.exec("SELECT image_id, idx, length(data) AS bytes FROM image_chunks ORDER BY idx").toArray() : [],
      messageBytes: Number(state.storage.sql.exec("SELECT sum(length(content)) AS n FROM messages").one().n),
      eventBytes: storedEvents(state.storage.sql).reduce((sum, row) => sum + row.data.length, 0),
    };
  });
}

describe("image inputs", () => {
  it("reach the Anthropic mock as base64 image blocks, and the history shows the stored image", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, { model: model.key, input: [{ type: "text", text: "What is in this picture?" }, pngBlock()] });
    expect((await waitForStatus(who, session.id, ["done", "failed"])).status).toBe("done");

    const [request] = await model.requests();
    const turn = (request!.body as { messages: AnthropicTurn[] }).messages[0]!;
    expect(turn.content).toEqual([
      { type: "text", text: "What is in this picture?" },
      expect.objectContaining({ type: "image", source: { type: "base64", media_type: "image/png", data: TINY_PNG_BASE64 } }),
    ]);
    const [first] = await messagesOf(who, session.id);
    expect(first!.content[1]).toEqual({
      type: "image",
      source: {
        type: "stored",
        image_id: expect.stringMatching(/^img_[0-9a-f]{32}$/),
        media_type: "image/png",
        size_bytes: pngBytes().length,
        width: 1,
        height: 1,
      },
    });
  });

  it("reach the OpenAI-compatible mock as image_url parts with a data URL", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("gpt-4o"));
    const session = await createSession(who, { model: `openai:${model.key}`, input: [{ type: "text", text: "Describe it." }, pngBlock()] });
    expect((await waitForStatus(who, session.id, ["done", "failed"])).status).toBe("done");
    const turns = ((await model.requests())[0]!.body as { messages: ChatTurn[] }).messages;
    expect(turns).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Describe it." },
          { type: "image_url", image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
        ],
      },
    ]);
  });

  it("fetches an image URL once through the guard, and keeps where it came from", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const url = `${mockUrl()}/image/png?pad=10`;
    await model.script({ reply: { content: [{ type: "text", text: "one" }] } }, { reply: { content: [{ type: "text", text: "two" }] } });
    const session = await createSession(who, { model: model.key, input: [{ type: "image", source: { type: "url", url } }] });
    await waitForStatus(who, session.id, ["done"]);
    expect((await post(who, `/v1/sessions/${session.id}/messages`, { input: "and again?" })).status).toBe(202);
    await waitForStatus(who, session.id, ["done"]);
    const [first] = await messagesOf(who, session.id);
    expect((first!.content[0] as ImageBlock).source).toMatchObject({ url, size_bytes: pngBytes(10).length, media_type: "image/png" });
    // Both calls carry the bytes; the platform, not the provider, fetched them.
    for (const request of await model.requests()) {
      const turn = (request.body as { messages: AnthropicTurn[] }).messages[0]!;
      expect(turn.content[0]!.source).toEqual({ type: "base64", media_type: "image/png", data: pngBase64(10) });
    }
  });

  it("are stored once: not in messages, not in events, and not twice for the same image", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    // Over one storage row: the bytes go in chunks and come back whole.
    const big = 1536 * 1024;
    const session = await createSession(who, { model: model.key, input: [{ type: "text", text: "one" }, pngBlock(big)] });
    await waitForStatus(who, session.id, ["done"]);
    expect(
      (await post(who, `/v1/sessions/${session.id}/messages`, { input: [{ type: "text", text: "same again" }, pngBlock(big)] })).status,
    ).toBe(202);
    await waitForStatus(who, session.id, ["done"]);

    const stored = await storedImages(who, session.id);
    expect(stored.images).toEqual([
      expect.objectContaining({ media_type: "image/png", size_bytes: pngBytes(big).length, width: 1, height: 1 }),
    ]);
    expect(stored.chunks.map((c) => c.idx)).toEqual([0, 1]);
    expect(stored.chunks.reduce((sum, c) => sum + Number(c.bytes), 0)).toBe(pngBytes(big).length);
    expect(stored.messageBytes).toBeLessThan(4_000);
    expect(stored.eventBytes).toBeLessThan(4_000);
    const last = (await model.requests()).at(-1)!;
    const images = (last.body as { messages: AnthropicTurn[] }).messages.flatMap((t) => t.content).filter((b) => b.type === "image");
    expect(images.map((b) => b.source!.data === pngBase64(big))).toEqual([true, true]);
  }, 30_000);

  it("answers an image over max_image_bytes with a 400, not a 413, and stores nothing", async () => {
    const who = await caller();
    // Over the default limit, but within the body allowance of one image: the limit decides,
    // whichever provider the model runs on.
    const over = DEFAULT_MAX_IMAGE_BYTES + 1 - pngBytes().length;
    const openai = mockModel(uniqueKey("gpt-4o"));
    for (const model of [undefined, `openai:${openai.key}`]) {
      expect(await refused(who, { input: [pngBlock(over)], ...(model ? { model } : {}) })).toEqual([
        { path: "body.input.0.source.data", message: expect.stringContaining(`max_image_bytes (${DEFAULT_MAX_IMAGE_BYTES} bytes)`) },
      ]);
    }
    expect(await openai.requests()).toEqual([]);
    // A session's own lower limit, and a URL image, are held to it too.
    expect(await refused(who, { input: [pngBlock(2000)], limits: { max_image_bytes: 1024 } })).toEqual([
      expect.objectContaining({ path: "body.input.0.source.data" }),
    ]);
    const url = `${mockUrl()}/image/png?pad=2000`;
    expect(await refused(who, { input: [{ type: "image", source: { type: "url", url } }], limits: { max_image_bytes: 1024 } })).toEqual([
      { path: "body.input.0.source.url", message: expect.stringContaining("max_image_bytes (1024 bytes)") },
    ]);
    const session = await createSession(who, { limits: { max_image_bytes: 1024 } });
    const res = await post(who, `/v1/sessions/${session.id}/messages`, { input: [pngBlock(2000)] });
    expect(res.status).toBe(400);
    expect((await storedImages(who, session.id)).images).toEqual([]);
  });

  it("refuses, with a 400 naming the field, what is not an image of an accepted type or not what it claims", async () => {
    const who = await caller();
    const cases: [unknown, string, RegExp][] = [
      [pngBlock(0, "image/jpeg"), "body.input.0.source.media_type", /is image\/png, not image\/jpeg/],
      [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "bm90IGFuIGltYWdl" } },
        "body.input.0.source",
        /not an image/,
      ],
      [
        { type: "image", source: { type: "base64", media_type: "image/png", data: `data:image/png;base64,${TINY_PNG_BASE64}` } },
        "body.input.0.source.data",
        /Not base64/,
      ],
      [{ type: "image", source: { type: "url", url: `${mockUrl()}/page/text` } }, "body.input.0.source", /not an image/],
      [{ type: "image", source: { type: "url", url: `${mockUrl()}/nothing-here` } }, "body.input.0.source.url", /answered 404/],
    ];
    for (const [block, path, message] of cases) {
      const errors = await refused(who, { input: [block] });
      expect([path, errors]).toEqual([path, [{ path, message: expect.stringMatching(message) }]]);
    }
  });

  it.each([
    ["an OpenAI-compatible model not known to take them", (key: string) => `openai:${key}`, "llama"],
    ["a Claude model from before images", (key: string) => key, "claude-2"],
  ])("refuses an image for %s, with a 400", async (_name, id, family) => {
    const who = await caller();
    const model = mockModel(uniqueKey(family));
    expect(await refused(who, { model: id(model.key), input: [{ type: "text", text: "look" }, pngBlock()] })).toEqual([
      { path: "body.input.1", message: `The model "${id(model.key)}" does not accept images.` },
    ]);
    const session: Session = await createSession(who, { model: id(model.key) });
    for (const ifRunning of [undefined, "enqueue", "interrupt"]) {
      const res = await post(who, `/v1/sessions/${session.id}/messages`, {
        input: [pngBlock()],
        ...(ifRunning ? { if_running: ifRunning } : {}),
      });
      expect(res.status).toBe(400);
      expect((await readProblem(res)).errors).toEqual([
        { path: "body.input.0", message: `The model "${id(model.key)}" does not accept images.` },
      ]);
    }
    expect(await model.requests()).toEqual([]);
    expect((await storedImages(who, session.id)).images).toEqual([]);
  });
});
