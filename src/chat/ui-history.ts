/**
 * A chat's conversation as the AI SDK's `UIMessage`s, for `useChat({ messages })` after a reload:
 * each input a user message, the answer to it one assistant message. The answer is rebuilt by
 * `ChatTurn` from the stored messages and calls (the rule the live stream follows), so the
 * parts, their states and the ids are those the page held. Pure, but for the reads in `readChatHistory`.
 */
import type { SessionClient } from "../sessions/client";
import type { Message, Page, ToolCall } from "../session-config/types";
import { MAX_CHAT_MESSAGES } from "./request";
import { isInputMessage } from "../sessions/input-message";
import { ChatTurn, answerMessageId, inputMessageId } from "./ui-chunks";
import { UiPartsFold, type UiPart } from "./ui-parts";

export interface ChatUiMessage {
  id: string;
  role: "user" | "assistant";
  parts: UiPart[];
}

/** Messages and calls read per call to the session object: the lists' largest page. */
const HISTORY_PAGE = 200;

/**
 * The conversation, oldest first; at most the newest `MAX_CHAT_MESSAGES`, since a page holding
 * more could not send its next turn. Reasoning the provider redacted and tool results stand in
 * the calls' parts; images of an input have no part (the chat route takes text only).
 */
export function chatHistory(messages: Message[], calls: ReadonlyMap<string, ToolCall>, clientTools: ReadonlySet<string>): ChatUiMessage[] {
  const out: ChatUiMessage[] = [];
  let answer: { id: string; fold: UiPartsFold; turn: ChatTurn } | null = null;
  const flush = () => {
    if (answer && answer.fold.parts.length > 0) out.push({ id: answer.id, role: "assistant", parts: answer.fold.parts });
    answer = null;
  };
  for (const message of messages) {
    if (isInputMessage(message)) {
      flush();
      const text = message.content.flatMap((block) => (block.type === "text" ? [{ type: "text", text: block.text }] : []));
      out.push({ id: inputMessageId(message.seq), role: "user", parts: text });
      answer = { id: answerMessageId(message.seq), fold: new UiPartsFold(), turn: new ChatTurn(clientTools) };
      continue;
    }
    if (message.role !== "assistant") continue;
    answer ??= { id: answerMessageId(0), fold: new UiPartsFold(), turn: new ChatTurn(clientTools) };
    const current: { fold: UiPartsFold; turn: ChatTurn } = answer;
    current.fold.add(current.turn.frame({ type: "message", data: message, created_at: message.created_at }));
    let handedBack = false;
    for (const block of message.content) {
      const call = block.type === "tool_use" ? calls.get(block.id) : undefined;
      if (!call) continue;
      current.fold.add(current.turn.call(call));
      handedBack ||= call.decision !== null || call.status === "waiting_approval" || clientTools.has(call.name);
    }
    // Live, a call that waited for a person or the page ended the stream; the next one began a new turn.
    if (handedBack) current.turn = new ChatTurn(clientTools);
  }
  flush();
  return out.slice(-MAX_CHAT_MESSAGES);
}

/** The items of a paged list that `keep` wants, in order. */
async function readKept<T>(read: (cursor: string | null) => Promise<Page<T>>, keep: (item: T) => boolean): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page: Page<T> = await read(cursor);
    items.push(...page.data.filter(keep));
    if (page.next_cursor === null || page.next_cursor === cursor) return items;
    cursor = page.next_cursor;
  }
}

/**
 * The session's messages and calls, read page by page, as the conversation. Only the stored
 * messages from the `MAX_CHAT_MESSAGES`-th newest input on are kept while reading (each input
 * is at least one UI message), and only their calls, so memory follows what is answered.
 */
export async function readChatHistory(
  client: Pick<SessionClient, "listMessages" | "listToolCalls">,
  clientTools: ReadonlySet<string>,
): Promise<ChatUiMessage[]> {
  let messages: Message[] = [];
  const inputs: number[] = [];
  let after = 0;
  for (;;) {
    const page = await client.listMessages(after, HISTORY_PAGE);
    for (const message of page.data) {
      messages.push(message);
      if (isInputMessage(message)) inputs.push(messages.length - 1);
    }
    if (inputs.length > MAX_CHAT_MESSAGES) {
      const from = inputs[inputs.length - MAX_CHAT_MESSAGES]!;
      messages = messages.slice(from);
      inputs.splice(0, inputs.length);
      messages.forEach((message, index) => isInputMessage(message) && inputs.push(index));
    }
    const last = page.data.at(-1);
    if (page.next_cursor === null || last === undefined) break;
    after = last.seq;
  }
  const wanted = new Set(messages.flatMap((message) => message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []))));
  const calls = await readKept(
    (cursor) => client.listToolCalls(cursor, HISTORY_PAGE),
    (call) => wanted.has(call.id),
  );
  return chatHistory(messages, new Map(calls.map((call) => [call.id, call])), clientTools);
}
