/**
 * The two ends of a session's transcript that evals read: its first user input (as a run input
 * again, text blocks only) and its final answer (the text of its last assistant message).
 */
import type { SessionClient } from "./client";
import type { Message } from "../session-config/types";

const PAGE = 200;

export interface TranscriptEnds {
  /** The first user message's text: a string, or null when it had none (images only). */
  firstInput: string | null;
  answer: string | null;
}

export async function transcriptEnds(client: SessionClient): Promise<TranscriptEnds> {
  let after = 0;
  const ends: TranscriptEnds = { firstInput: null, answer: null };
  let sawUser = false;
  for (;;) {
    const page = await client.listMessages(after, PAGE);
    for (const message of page.data as Message[]) {
      after = message.seq;
      const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
      if (message.role === "user" && !sawUser) {
        // A user message of tool results only is not an input.
        if (message.content.some((block) => block.type === "text" || block.type === "image")) {
          sawUser = true;
          ends.firstInput = text === "" ? null : text;
        }
      } else if (message.role === "assistant" && text !== "")
        ends.answer = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    }
    if (page.next_cursor === null || page.data.length === 0) return ends;
  }
}
