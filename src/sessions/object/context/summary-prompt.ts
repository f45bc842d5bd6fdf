/**
 * What a summary call asks and how a summary is sent. The folded messages are rendered as a
 * plain transcript, so the call needs no tool definitions and any provider can make it, and a
 * summary is extended from the previous one rather than remade from the whole history. Pure.
 */
import type { ContentBlock } from "../../../session-config/types";
import type { ModelRequest } from "../model/provider";

/** One block's text in the transcript is cut to this; the summary keeps the gist, not the bytes. */
export const MAX_TRANSCRIPT_BLOCK_CHARS = 4_000;

export const SUMMARY_SYSTEM =
  "You maintain the running summary of a long conversation between a user and an AI agent that calls tools. " +
  "The agent will continue from your summary instead of the messages it replaces, so keep every fact, decision, " +
  "result, identifier and open question it needs, and drop pleasantries and repetition. Write plain prose or " +
  "short lists, no preamble.";

/** The marker that opens a summary where it is sent; tests and audits look for it. */
export const SUMMARY_HEADING = "[Summary of the earlier conversation]";

export function summaryRequest(
  model: string,
  previous: string | null,
  folded: readonly { role: string; content: readonly ContentBlock[] }[],
  maxTokens: number,
): ModelRequest {
  const instruction =
    `${previous === null ? "There is no summary yet." : `The summary so far:\n${previous}`}\n\n` +
    `Messages that follow it, oldest first:\n${transcript(folded)}\n\n` +
    `Write the updated summary: the summary so far extended with these messages, at most about ${Math.floor(maxTokens * 0.6)} words.`;
  return {
    model,
    system: SUMMARY_SYSTEM,
    messages: [{ role: "user", content: [{ type: "text", text: instruction }] }],
    tools: [],
    maxTokens,
  };
}

export function transcript(messages: readonly { role: string; content: readonly ContentBlock[] }[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === "text") lines.push(`[${message.role}] ${cut(block.text)}`);
      else if (block.type === "tool_use") lines.push(`[assistant called ${block.name} (${block.id})] ${cut(JSON.stringify(block.input))}`);
      else if (block.type === "image")
        lines.push(`[${message.role} sent an image: ${block.source.media_type}, ${block.source.width}×${block.source.height}]`);
      // Reasoning is not part of what was said: the summary keeps answers and results.
      else if (block.type === "tool_result")
        lines.push(`[${block.is_error ? "error from" : "result of"} ${block.tool_use_id}] ${cut(block.content)}`);
    }
  }
  return lines.join("\n");
}

/** The text block a summary is sent as, in place of the messages it covers. */
export function summaryBlock(text: string): ContentBlock {
  return { type: "text", text: `${SUMMARY_HEADING}\n${text}` };
}

/** The summary's text from the model's answer; null when it wrote none. */
export function summaryText(content: readonly ContentBlock[]): string | null {
  const text = content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
  return text === "" ? null : text;
}

function cut(text: string): string {
  return text.length <= MAX_TRANSCRIPT_BLOCK_CHARS ? text : `${text.slice(0, MAX_TRANSCRIPT_BLOCK_CHARS)}… (cut)`;
}
