/**
 * The mock model holds requests to what the real APIs accept for images, forced tools and JSON
 * schemas (a wrong shape is a 400, as a provider would answer), and answers a forced tool or a
 * schema in kind when nothing is scripted.
 */
import { describe, expect, it } from "vitest";
import { TINY_PNG_BASE64 } from "../support/images";
import { mockUrl, uniqueKey } from "../support/mock-client";

const SCHEMA = {
  type: "object",
  properties: { n: { type: "integer", minimum: 1, maximum: 9 } },
  required: ["n"],
  additionalProperties: false,
};

async function post(path: string, body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${mockUrl()}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json<Record<string, unknown>>() };
}

const messages = (content: unknown) => ({ model: uniqueKey("strict"), max_tokens: 64, messages: [{ role: "user", content }] });
const image = (media_type: string, data: string) => ({ type: "image", source: { type: "base64", media_type, data } });
const dataUrl = (mediaType: string, data: string) => [
  { type: "text", text: "see" },
  { type: "image_url", image_url: { url: `data:${mediaType};base64,${data}` } },
];

describe("the mock's Messages API", () => {
  it("takes a base64 image and refuses one that is not what it claims or not base64", async () => {
    expect((await post("/v1/messages", messages([image("image/png", TINY_PNG_BASE64)]))).status).toBe(200);
    for (const bad of [
      image("image/jpeg", TINY_PNG_BASE64),
      image("image/png", "%%%"),
      image("image/bmp", TINY_PNG_BASE64),
      { type: "image", source: { type: "url", url: "https://x" } },
    ]) {
      const answer = await post("/v1/messages", messages([bad]));
      expect([bad, answer.status, (answer.body.error as { type: string }).type]).toEqual([bad, 400, "invalid_request_error"]);
    }
  });

  it("calls a forced tool with an input valid for its schema, and refuses a choice of a tool it was not given", async () => {
    const tools = [{ name: "respond", description: "answer", input_schema: SCHEMA }];
    const answer = await post("/v1/messages", { ...messages("hi"), tools, tool_choice: { type: "tool", name: "respond" } });
    expect(answer.status).toBe(200);
    const [call] = answer.body.content as { type: string; name: string; input: { n: number } }[];
    expect(call).toMatchObject({ type: "tool_use", name: "respond" });
    expect(call!.input.n).toBeGreaterThanOrEqual(1);
    expect((await post("/v1/messages", { ...messages("hi"), tools, tool_choice: { type: "tool", name: "other" } })).status).toBe(400);
  });
});

describe("the mock's Chat Completions API", () => {
  it("takes image_url parts with a data URL and refuses one that is not base64 of its type", async () => {
    expect((await post("/v1/chat/completions", messages(dataUrl("image/png", TINY_PNG_BASE64)))).status).toBe(200);
    expect((await post("/v1/chat/completions", messages(dataUrl("image/gif", TINY_PNG_BASE64)))).status).toBe(400);
    expect(
      (await post("/v1/chat/completions", messages([{ type: "image_url", image_url: { url: "https://example.com/a.png" } }]))).status,
    ).toBe(400);
  });

  it("answers response_format: json_schema with a value of the schema, and refuses a malformed one", async () => {
    const format = { type: "json_schema", json_schema: { name: "output", schema: SCHEMA, strict: true } };
    const answer = await post("/v1/chat/completions", { ...messages("hi"), response_format: format });
    expect(answer.status).toBe(200);
    const content = (answer.body.choices as { message: { content: string } }[])[0]!.message.content;
    expect(JSON.parse(content)).toEqual({ n: expect.any(Number) });
    expect(
      (
        await post("/v1/chat/completions", {
          ...messages("hi"),
          response_format: { type: "json_schema", json_schema: { name: "has space", schema: SCHEMA } },
        })
      ).status,
    ).toBe(400);
  });
});
