/**
 * The token estimate of a message, computed once when the message is saved and stored beside
 * it, so fitting the history to a budget reads small integers instead of parsing the history.
 * Pure.
 *
 * No tokenizer of the providers' own runs in a Worker at a reasonable size (Claude's is not
 * published; OpenAI's vocabularies are megabytes), so the estimate counts UTF-8 bytes of the
 * content's JSON: `BYTES_PER_TOKEN` = 3. Byte-pair tokenizers average about 4 characters of
 * English per token and about 3 of code or JSON; a character outside ASCII takes 2 to 4 bytes
 * and rarely more than one token. The JSON's quotes and keys stand for the structure tokens
 * of blocks. So the estimate errs on the high side for most text, which keeps a window under
 * its budget; where it still counts low (some scripts, some models), the loop learns the
 * provider's own count after each call and scales its budget (see `calibratedRatio`).
 */
import type { ContentBlock, Role } from "../../../session-config/types";

export const BYTES_PER_TOKEN = 3;
/** Role markers and turn separators the provider adds around every message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * What a stored message is, for fitting: a user's `input` (which may start a window), a user
 * message of `tool_result`s (which may not: its tool_use must come first), and an assistant
 * `answer` with or without `tool_use`.
 */
export const MESSAGE_KINDS = ["input", "tool_result", "answer", "tool_use"] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** The number of UTF-8 bytes of `text`, without encoding it. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair is one 4-byte character
      i++;
    } else bytes += 3;
  }
  return bytes;
}

export function estimateTextTokens(text: string): number {
  return Math.ceil(utf8Bytes(text) / BYTES_PER_TOKEN);
}

/**
 * The estimate of a message as it is stored, overhead included. An image counts by its pixels
 * (`estimateImageTokens`), never by the bytes of its reference or of its data.
 */
export function estimateMessageTokens(content: readonly ContentBlock[]): number {
  let images = 0;
  const rest: ContentBlock[] = [];
  for (const block of content) {
    if (block.type === "image") images += estimateImageTokens(block.source.width, block.source.height);
    else rest.push(block);
  }
  return (rest.length ? estimateTextTokens(JSON.stringify(rest)) : 0) + images + MESSAGE_OVERHEAD_TOKENS;
}

/** Anthropic scales an image so that its long edge is at most this many pixels… */
const ANTHROPIC_MAX_EDGE = 1568;
/** …and counts about one token per this many pixels of what is left. */
const ANTHROPIC_PIXELS_PER_TOKEN = 750;
/** OpenAI (high detail) fits an image in 2048 × 2048, then its short side in 768, and counts 512-pixel tiles. */
const OPENAI_FIT = 2048;
const OPENAI_SHORT_SIDE = 768;
const OPENAI_TILE = 512;
const OPENAI_TILE_TOKENS = 170;
const OPENAI_BASE_TOKENS = 85;

/**
 * The tokens an image costs, from its size in pixels: the higher of the two providers' published
 * rules (Anthropic: pixels / 750 after fitting the long edge in 1568; OpenAI at high detail: 85 +
 * 170 per 512-pixel tile after fitting), so the estimate holds whichever provider runs it.
 */
export function estimateImageTokens(width: number, height: number): number {
  const anthropicScale = Math.min(1, ANTHROPIC_MAX_EDGE / Math.max(width, height));
  const anthropic = Math.ceil((width * anthropicScale * height * anthropicScale) / ANTHROPIC_PIXELS_PER_TOKEN);
  let w = width;
  let h = height;
  const fit = Math.min(1, OPENAI_FIT / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, OPENAI_SHORT_SIDE / Math.min(w, h));
  w *= shrink;
  h *= shrink;
  const openai = OPENAI_BASE_TOKENS + OPENAI_TILE_TOKENS * Math.ceil(w / OPENAI_TILE) * Math.ceil(h / OPENAI_TILE);
  return Math.max(anthropic, openai);
}

/** The estimate of any JSON value sent once per call (tool definitions). */
export function estimateJsonTokens(value: unknown): number {
  return estimateTextTokens(JSON.stringify(value) ?? "");
}

export function messageKind(role: Role, content: readonly ContentBlock[]): MessageKind {
  if (role === "user") return content.some((block) => block.type === "tool_result") ? "tool_result" : "input";
  return content.some((block) => block.type === "tool_use") ? "tool_use" : "answer";
}

export function roleOf(kind: MessageKind): Role {
  return kind === "input" || kind === "tool_result" ? "user" : "assistant";
}

/** The provider's count is never below this share of the estimate for the ratio to go down. */
export const MIN_TOKEN_RATIO = 1;
/** A ratio above this says more about a bad report than about the text. */
export const MAX_TOKEN_RATIO = 4;

/**
 * How much the provider counted for what was estimated: `reported / estimated` of the last
 * call, never below 1 (an estimate that is too high only leaves room unused) and capped. The
 * budget is divided by it, so a model whose tokenizer counts more than the estimate gets a
 * proportionally shorter window from the next call on.
 */
export function calibratedRatio(reportedInputTokens: number, estimatedInputTokens: number): number {
  if (!(reportedInputTokens > 0) || !(estimatedInputTokens > 0)) return MIN_TOKEN_RATIO;
  const ratio = reportedInputTokens / estimatedInputTokens;
  return Math.min(MAX_TOKEN_RATIO, Math.max(MIN_TOKEN_RATIO, Math.round(ratio * 1000) / 1000));
}
