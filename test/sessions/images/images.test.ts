/** The pure parts of image inputs: base64, what an image is, what it costs in tokens, which models take one, and the body cap. */
import { describe, expect, it } from "vitest";
import { base64Length, decodeBase64, decodedLength, encodeBase64 } from "../../../src/shared/base64";
import { estimateImageTokens, estimateMessageTokens } from "../../../src/sessions/object/context/estimate";
import { inspectImage } from "../../../src/sessions/object/images/inspect";
import { withImageData, MISSING_IMAGE_TEXT } from "../../../src/sessions/object/images/resolve";
import { acceptsImages } from "../../../src/models/catalog";
import type { ImageBlock } from "../../../src/session-config/types";
import { bodyCapFor } from "../../../src/api/middleware/body-limit";
import { BUILTIN_DEFAULT_LIMITS } from "../../../src/limits";
import { pngBytes, TINY_PNG_BASE64 } from "../../support/images";
import { resolveRunInput } from "../../../src/sessions/images";
import { ApiError } from "../../../src/problems";

const image = (width: number, height: number, size = 10): ImageBlock => ({
  type: "image",
  source: { type: "stored", image_id: "img_x", media_type: "image/png", size_bytes: size, width, height },
});

describe("base64", () => {
  it("round-trips every length and refuses what is not canonical base64", () => {
    for (let n = 0; n < 9; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 97) & 255);
      const text = encodeBase64(bytes);
      expect(text.length).toBe(base64Length(n));
      expect(decodedLength(text)).toBe(n);
      expect(decodeBase64(text)).toEqual(bytes);
    }
    for (const bad of ["abc", "ab c", "a=bc", "Y===", "données=", `data:image/png;base64,${TINY_PNG_BASE64}`])
      expect([bad, decodeBase64(bad)]).toEqual([bad, null]);
  });
});

describe("inspecting an image", () => {
  it("reads the type and size from the bytes, not from any claim", () => {
    expect(inspectImage(pngBytes(100))).toEqual({ ok: true, image: { media_type: "image/png", width: 1, height: 1 } });
    expect(inspectImage(new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg' width='5' height='5'/>"))).toMatchObject({
      ok: false,
      problem: expect.stringContaining("svg"),
    });
    expect(inspectImage(new TextEncoder().encode("hello"))).toMatchObject({ ok: false, problem: expect.stringContaining("not an image") });
  });
});

describe("the token estimate of an image", () => {
  it("follows the pixels, never the bytes", () => {
    expect(estimateMessageTokens([image(1000, 1000, 10)])).toBe(estimateMessageTokens([image(1000, 1000, 5_000_000)]));
    expect(estimateImageTokens(1, 1)).toBe(85 + 170);
    // Anthropic's rule is the higher for a large square, OpenAI's tiles for a long strip.
    expect(estimateImageTokens(1092, 1092)).toBe(Math.ceil((1092 * 1092) / 750));
    expect(estimateImageTokens(4000, 4000)).toBe(Math.ceil((1568 * 1568) / 750));
    expect(estimateImageTokens(512, 4096)).toBe(85 + 170 * 1 * 4);
  });

  it("is what a message of text and an image costs together", () => {
    const textOnly = estimateMessageTokens([{ type: "text", text: "look" }]);
    expect(estimateMessageTokens([{ type: "text", text: "look" }, image(800, 600)])).toBe(textOnly + estimateImageTokens(800, 600));
  });
});

describe("a call's images", () => {
  it("are read for the call and sent as base64; one that is gone is said to be gone", () => {
    const messages = withImageData(
      [
        {
          role: "user",
          content: [{ type: "text", text: "a" }, image(1, 1), { ...image(1, 1), source: { ...image(1, 1).source, image_id: "img_gone" } }],
        },
      ],
      (id) => (id === "img_x" ? pngBytes() : null),
    );
    expect(messages[0]!.content).toEqual([
      { type: "text", text: "a" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: TINY_PNG_BASE64 } },
      { type: "text", text: MISSING_IMAGE_TEXT },
    ]);
  });
});

describe("which models take images", () => {
  it("knows the families, defaults by provider, and lets MODELS say", () => {
    expect(acceptsImages(null, "claude-sonnet-4-5")).toBe(true);
    expect(acceptsImages(null, "claude-2.1")).toBe(false);
    expect(acceptsImages(null, "openai:gpt-4o-mini")).toBe(true);
    expect(acceptsImages(null, "openai:o3-mini")).toBe(false);
    expect(acceptsImages(null, "openai:llama3")).toBe(false);
    const catalog = [
      { pattern: "openai:llava*", contextTokens: null, images: true },
      { pattern: "*", contextTokens: null },
    ];
    expect(acceptsImages(catalog, "openai:llava-13b")).toBe(true);
    expect(acceptsImages(catalog, "openai:llama3")).toBe(false);
  });
});

describe("the body cap", () => {
  it("gives the routes that take a run's input room for one image in base64", () => {
    const limits = BUILTIN_DEFAULT_LIMITS;
    const room = limits.max_request_bytes + base64Length(limits.max_image_bytes);
    expect(bodyCapFor(limits, "POST", "/v1/sessions")).toBe(room);
    expect(bodyCapFor(limits, "POST", "/v1/sessions/ses_1/messages")).toBe(room);
    expect(bodyCapFor(limits, "POST", "/v1/sessions/ses_1/tool-calls/t/output")).toBe(limits.max_request_bytes);
    expect(bodyCapFor(limits, "PUT", "/v1/tenant/settings")).toBe(limits.max_request_bytes);
  });
});

describe("images by URL", () => {
  const rules = (fetchImpl: typeof fetch, allowPrivateUrls = false) => ({
    maxImageBytes: 1024,
    model: "anthropic:claude-test",
    catalog: null,
    allowPrivateUrls,
    fetchImpl,
  });
  const urlInput = [{ type: "image" as const, source: { type: "url" as const, url: "https://images.example.com/a.png" } }];
  /** https://images.example.com/a.png redirects to the same image on http, on another origin. */
  const downgrading: typeof fetch = async (input) => {
    const url = new Request(input).url;
    if (url === "https://images.example.com/a.png")
      return new Response(null, { status: 302, headers: { location: "http://cdn.example.net/a.png" } });
    if (url === "http://cdn.example.net/a.png") return new Response(pngBytes(), { headers: { "content-type": "image/png" } });
    throw new TypeError(`no route for ${url}`);
  };

  it("refuses a redirect that leaves https, before it is sent", async () => {
    const error = await resolveRunInput(urlInput, rules(downgrading)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errors).toEqual([
      { path: "body.input.0.source.url", message: expect.stringContaining('the scheme "http" is not allowed; use https') },
    ]);
  });

  it("follows it where private URLs are allowed (local development)", async () => {
    const input = await resolveRunInput(urlInput, rules(downgrading, true));
    expect(input).toEqual([expect.objectContaining({ type: "image" })]);
  });
});
