/**
 * The reasoning formats of OpenAI-compatible servers, read from an answer and written back into
 * a request as each server wants it (the catalog's `reasoningReplayFor`). Read: `reasoning_content`
 * (DeepSeek, GLM, Qwen, xAI), `reasoning` (gpt-oss on Groq, Ollama, vLLM; OpenRouter), Mistral's
 * `content` arrays of `thinking` and `text` chunks, and OpenRouter's `reasoning_details`. Pure.
 */
import type { ReasoningReplay } from "../../../models/catalog";
import type { ThinkingBlock } from "../../../session-config/types";

export type ReasoningDetail = Record<string, unknown>;

/** A piece of an answer's prose as one chunk (or a whole message) carries it. */
export interface ProsePiece {
  part: "reasoning" | "text";
  text: string;
}

/**
 * The reasoning a server sends beside the answer: `reasoning_content` or `reasoning`; when both
 * come, they are the same text.
 */
export function reasoningOf(message: { reasoning_content?: unknown; reasoning?: unknown }): string {
  if (typeof message.reasoning_content === "string") return message.reasoning_content;
  return typeof message.reasoning === "string" ? message.reasoning : "";
}

/**
 * The prose of a `content` field: a string is text; Mistral's reasoning models send an array of
 * chunks, `{ type: "thinking", thinking: [{ type: "text", text }] }` and `{ type: "text", text }`,
 * in the order written. Chunks of other types carry no prose and are skipped.
 */
export function contentPieces(content: unknown): ProsePiece[] {
  if (typeof content === "string") return content === "" ? [] : [{ part: "text", text: content }];
  if (!Array.isArray(content)) return [];
  const pieces: ProsePiece[] = [];
  for (const chunk of content as { type?: unknown; text?: unknown; thinking?: unknown }[]) {
    if (chunk?.type === "text" && typeof chunk.text === "string" && chunk.text !== "") pieces.push({ part: "text", text: chunk.text });
    if (chunk?.type !== "thinking") continue;
    const inner = typeof chunk.thinking === "string" ? [{ type: "text", text: chunk.thinking }] : chunk.thinking;
    if (!Array.isArray(inner)) continue;
    for (const piece of inner as { type?: unknown; text?: unknown }[]) {
      if (piece?.type === "text" && typeof piece.text === "string" && piece.text !== "")
        pieces.push({ part: "reasoning", text: piece.text });
    }
  }
  return pieces;
}

/**
 * OpenRouter's `reasoning_details` as received over a stream: consecutive pieces of one
 * `reasoning.text` item share its `index`; their `text` is joined and their other fields take
 * the last value given (a signature comes with the last piece). Every other item (encrypted
 * data, summaries) is kept as it came: joining two signatures would corrupt both.
 */
export class ReasoningDetails {
  readonly #items: ReasoningDetail[] = [];

  add(details: unknown): void {
    if (!Array.isArray(details)) return;
    for (const detail of details) {
      if (detail === null || typeof detail !== "object" || Array.isArray(detail)) continue;
      const item = detail as ReasoningDetail;
      const last = this.#items.at(-1);
      const joins =
        item.type === "reasoning.text" && last?.type === "reasoning.text" && typeof item.index === "number" && last.index === item.index;
      if (!joins) {
        this.#items.push({ ...item });
        continue;
      }
      for (const [field, value] of Object.entries(item)) {
        if (field === "text" && typeof value === "string" && typeof last.text === "string") last.text += value;
        else if (value !== null && value !== undefined) last[field] = value;
      }
    }
  }

  get items(): ReasoningDetail[] {
    return this.#items;
  }

  /** The readable reasoning of the items, for a server that sends no `reasoning` text beside them. */
  text(): string {
    return this.#items
      .map((item) => (item.type === "reasoning.text" ? item.text : item.type === "reasoning.summary" ? item.summary : ""))
      .filter((text): text is string => typeof text === "string")
      .join("");
  }
}

/** What an assistant message of a request carries of its turn's reasoning. */
export interface ReasoningFields {
  reasoning_content?: string;
  reasoning?: string;
  reasoning_details?: ReasoningDetail[];
}

/**
 * The reasoning fields of an assistant message, as the server wants them back (`ReasoningReplay`),
 * only on a message with tool calls: details as received, to the server that gave them; else
 * `reasoning_content`, DeepSeek's even when empty. Mistral's thinking goes into `content` instead
 * (`thinkingChunks`); gpt-oss on Groq gets `reasoning`; other models on Groq, and gpt-oss elsewhere, nothing.
 */
export function reasoningFields(thinking: readonly ThinkingBlock[], hasCalls: boolean, replay: ReasoningReplay): ReasoningFields {
  if (!hasCalls || replay === "none" || replay === "thinking_chunks") return {};
  const details = thinking.flatMap((block) => block.reasoning_details ?? []);
  if (details.length) return { reasoning_details: details };
  if (replay === "reasoning_details") return {};
  const text = thinking.map((block) => block.thinking).join("");
  if (replay === "reasoning") return text !== "" ? { reasoning: text } : {};
  return text !== "" || replay === "reasoning_content_always" ? { reasoning_content: text } : {};
}

/** Mistral's assistant content with its reasoning: thinking and text chunks in the order the turn holds them. */
export type MistralChunk = { type: "thinking"; thinking: { type: "text"; text: string }[]; closed: true } | { type: "text"; text: string };

/** The content of an assistant turn for a server that takes thinking chunks back; null when the turn has no reasoning to send. */
export function thinkingChunks(content: readonly { type: string; thinking?: unknown; text?: unknown }[]): MistralChunk[] | null {
  const chunks: MistralChunk[] = [];
  let thought = false;
  for (const block of content) {
    if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking !== "") {
      thought = true;
      chunks.push({ type: "thinking", thinking: [{ type: "text", text: block.thinking }], closed: true });
    } else if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
      chunks.push({ type: "text", text: block.text });
    }
  }
  return thought ? chunks : null;
}
