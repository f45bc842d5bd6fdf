/**
 * A chat's history against its live streams: each conversation is played as the page lived it
 * (the live chunks read by the published `ai` package's own reader, approvals answered as
 * `addToolApprovalResponse` answers them), then rebuilt from what the session stored; both must
 * be the same `UIMessage`s, ids included, for every part kind and tool state.
 */
import { readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { ChatTurn, answerMessageId, type UiChunk } from "../../src/chat/ui-chunks";
import { chatHistory, readChatHistory } from "../../src/chat/ui-history";
import { UiPartsFold } from "../../src/chat/ui-parts";
import type { EventFrame } from "../../src/sessions/object/events/frames";
import type { ContentBlock, Message, ToolCall } from "../../src/session-config/types";

const AT = "2026-01-01T00:00:00.000Z";

/** A session as it is stored, with the frames its watcher saw, built step by step. */
class Conversation {
  readonly messages: Message[] = [];
  readonly calls = new Map<string, ToolCall>();
  /** The frames of each stream the page read, in order. */
  readonly streams: EventFrame[][] = [];
  #seq = 0;
  #event = 0;

  #frame(type: EventFrame["type"], data: unknown): EventFrame {
    return { id: ++this.#event, type, data, created_at: AT };
  }

  #message(role: Message["role"], content: ContentBlock[]): Message {
    const message = { seq: ++this.#seq, role, content, created_at: AT };
    this.messages.push(message);
    return message;
  }

  /** A new stream (a request of the page), opened with the frames a run's start writes. */
  input(text: string): this {
    const message = this.#message("user", [{ type: "text", text }]);
    this.streams.push([this.#frame("status", { status: "running", stop_reason: null, error: null }), this.#frame("message", message)]);
    return this;
  }

  /** A stream the page opened by answering the calls that waited. */
  answering(): this {
    this.streams.push([this.#frame("status", { status: "running", stop_reason: null, error: null })]);
    return this;
  }

  #live(frame: EventFrame): void {
    this.streams.at(-1)!.push(frame);
  }

  /** A model step: deltas of its text blocks, then the stored answer. */
  answer(...content: ContentBlock[]): this {
    content.forEach((block, index) => {
      if (block.type === "text") this.#live({ type: "delta", data: { index, text: block.text, offset: 0 }, created_at: AT });
      if (block.type === "thinking")
        this.#live({ type: "delta", data: { index, text: block.thinking, offset: 0, kind: "reasoning" }, created_at: AT });
    });
    this.#live(this.#frame("message", this.#message("assistant", content)));
    for (const block of content) {
      if (block.type !== "tool_use") continue;
      const call: ToolCall = {
        id: block.id,
        step: 1,
        name: block.name,
        input: block.input,
        status: "running",
        output: null,
        is_error: false,
        created_at: AT,
        started_at: null,
        finished_at: null,
        decided_by: null,
        decided_at: null,
        decision: null,
        policy: null,
      };
      this.calls.set(call.id, call);
    }
    return this;
  }

  /** A call changes: the frame its watcher sees (a result once it has one). */
  call(id: string, change: Partial<ToolCall>): this {
    const call = { ...this.calls.get(id)!, ...change };
    this.calls.set(id, call);
    this.#live(this.#frame(call.status === "done" || call.status === "error" ? "tool_result" : "tool_call", call));
    return this;
  }

  /** The calls' results as the loop stores them (no part of their own). */
  results(): this {
    this.#message(
      "user",
      [...this.calls.values()]
        .filter((c) => c.output !== null)
        .map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: c.output ?? "" })),
    );
    return this;
  }

  status(status: string, stopReason: string | null = null): this {
    this.#live(this.#frame("status", { status, stop_reason: stopReason, error: null }));
    return this;
  }
}

async function accepted(chunks: UiChunk[]): Promise<UIMessageChunk[]> {
  const validator = uiMessageChunkSchema();
  return Promise.all(
    chunks.map(async (chunk) => {
      const result = await validator.validate!(chunk);
      if (!result.success) throw new Error(`the ai package refuses ${JSON.stringify(chunk)}: ${String(result.error)}`);
      return result.value as UIMessageChunk;
    }),
  );
}

/** What the package's reader builds from `chunks`, continuing `message` as `useChat` continues its last answer. */
async function read(chunks: UiChunk[], message?: UIMessage): Promise<UIMessage> {
  const parsed = await accepted(chunks);
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      parsed.forEach((chunk) => controller.enqueue(chunk));
      controller.close();
    },
  });
  let last: UIMessage | undefined = message;
  for await (const snapshot of readUIMessageStream({ stream, ...(message ? { message: structuredClone(message) } : {}) })) last = snapshot;
  return last!;
}

type Decision = { approvalId: string; approved: boolean };

/**
 * The page's messages as it lived them: each stream read live, an input's stream a new answer,
 * an answering stream the last answer continued after `addToolApprovalResponse`.
 */
async function lived(conversation: Conversation, decisions: Decision[][] = [], clientTools: string[] = []): Promise<UIMessage[]> {
  const page: UIMessage[] = [];
  let answered = 0;
  for (const frames of conversation.streams) {
    const turn = new ChatTurn(new Set(clientTools));
    const chunks = frames.flatMap((frame) => turn.frame(frame));
    const input = frames.find((frame) => frame.type === "message" && (frame.data as Message).role === "user");
    if (input) {
      const text = (input.data as Message).content.flatMap((block) =>
        block.type === "text" ? [{ type: "text" as const, text: block.text }] : [],
      );
      page.push({ id: `user-${(input.data as Message).seq}`, role: "user", parts: text });
      page.push(await read(chunks));
      continue;
    }
    const last = page.at(-1)!;
    for (const decision of decisions[answered++] ?? []) {
      const part = last.parts.find((p) => "approval" in p && p.approval?.id === decision.approvalId) as { state: string; approval: object };
      part.state = "approval-responded";
      part.approval = { ...part.approval, approved: decision.approved };
    }
    page[page.length - 1] = await read(chunks, last);
  }
  return JSON.parse(JSON.stringify(page)) as UIMessage[];
}

function stored(conversation: Conversation, clientTools: string[] = []): unknown {
  return JSON.parse(JSON.stringify(chatHistory(conversation.messages, conversation.calls, new Set(clientTools))));
}

const TOOL_USE = (id: string, name: string, input: unknown = {}): ContentBlock => ({ type: "tool_use", id, name, input });

describe("chatHistory", () => {
  it("shows the pages a web-search answer cites as source-url parts, each once, live and rebuilt alike", async () => {
    const cite = (url: string, title: string) => ({
      type: "web_search_result_location",
      url,
      title,
      cited_text: "…",
      encrypted_index: "Eo8B",
    });
    const chat = new Conversation()
      .input("What opened in Ginza?")
      .answer(
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "Apple Ginza" } },
        {
          type: "web_search_tool_result",
          tool_use_id: "srvtoolu_1",
          content: [{ type: "web_search_result", url: "https://a.example/ginza" }],
        },
        {
          type: "text",
          text: "Apple Ginza reopened.",
          citations: [cite("https://a.example/ginza", "Apple Ginza"), cite("https://a.example/ginza", "Apple Ginza")],
        },
        { type: "text", text: " It has four floors.", citations: [cite("https://b.example/floors", "Floors")] },
        {
          type: "text",
          text: " Fetched.",
          citations: [{ type: "char_location", document_title: "Ginza guide", start_char_index: 0, end_char_index: 4 }],
        },
      )
      .status("idle", "end_turn");
    const history = stored(chat);
    expect(history).toEqual(await lived(chat));
    const parts = (history as UIMessage[])[1]!.parts.filter((part) => part.type.startsWith("source-"));
    expect(parts).toEqual([
      { type: "source-url", sourceId: "https://a.example/ginza", url: "https://a.example/ginza", title: "Apple Ginza" },
      { type: "source-url", sourceId: "https://b.example/floors", url: "https://b.example/floors", title: "Floors" },
      { type: "source-document", sourceId: "document:Ginza guide", mediaType: "text/plain", title: "Ginza guide" },
    ]);
  });

  it("gives text, reasoning and a platform tool's output the parts and ids the live stream gave", async () => {
    const chat = new Conversation()
      .input("What time is it?")
      .answer({ type: "thinking", thinking: "The clock tool knows.", signature: "sig" }, TOOL_USE("toolu_1", "get_time"))
      .call("toolu_1", { status: "done", output: "12:00" })
      .results()
      .answer({ type: "text", text: "It is noon." })
      .status("idle", "end_turn")
      .input("Thanks")
      .answer({ type: "text", text: "You're welcome." })
      .status("idle", "end_turn");
    const history = stored(chat);
    expect(history).toEqual(await lived(chat));
    expect(history).toMatchObject([
      { id: "user-1", role: "user", parts: [{ type: "text", text: "What time is it?" }] },
      {
        id: answerMessageId(1),
        role: "assistant",
        parts: [
          { type: "step-start" },
          { type: "reasoning", text: "The clock tool knows.", state: "done" },
          {
            type: "dynamic-tool",
            toolName: "get_time",
            toolCallId: "toolu_1",
            state: "output-available",
            output: "12:00",
            providerExecuted: true,
          },
          { type: "step-start" },
          { type: "text", text: "It is noon.", state: "done" },
        ],
      },
      { id: "user-5", role: "user" },
      { id: "answer-5", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: "You're welcome." }] },
    ]);
  });

  it("names the live answer by its input, so the page's ids are the history's", async () => {
    const chat = new Conversation().input("hi").answer({ type: "text", text: "hello" }).status("idle", "end_turn");
    const turn = new ChatTurn(new Set());
    const chunks = chat.streams[0]!.flatMap((frame) => turn.frame(frame));
    expect(chunks[0]).toEqual({ type: "start", messageId: "answer-1" });
    expect((await read(chunks)).id).toBe("answer-1");
  });

  it("shows a call waiting for approval, then approved and done, as the page saw it", async () => {
    const chat = new Conversation()
      .input("Wire 5")
      .answer({ type: "text", text: "Wiring." }, TOOL_USE("toolu_a", "wire", { amount: 5 }))
      .call("toolu_a", { status: "waiting_approval" })
      .status("waiting_approval");
    const waiting = stored(chat) as UIMessage[];
    expect(waiting).toEqual(await lived(chat));
    expect(waiting[1]!.parts.at(-1)).toMatchObject({
      type: "dynamic-tool",
      state: "approval-requested",
      approval: { id: "toolu_a" },
      input: { amount: 5 },
    });

    chat.answering().call("toolu_a", { status: "running", decision: "approved", decided_by: "alice" });
    const approved = stored(chat) as UIMessage[];
    expect(approved).toEqual(await lived(chat, [[{ approvalId: "toolu_a", approved: true }]]));
    expect(approved[1]!.parts.at(-1)).toMatchObject({ state: "approval-responded", approval: { id: "toolu_a", approved: true } });

    chat.call("toolu_a", { status: "done", output: "sent" }).results().answer({ type: "text", text: "Done." }).status("idle", "end_turn");
    const done = stored(chat) as UIMessage[];
    expect(done).toEqual(await lived(chat, [[{ approvalId: "toolu_a", approved: true }]]));
    expect(done).toHaveLength(2);
    expect(done[1]!.parts.filter((part) => part.type === "dynamic-tool")).toEqual([
      expect.objectContaining({ state: "output-available", output: "sent", approval: { id: "toolu_a", approved: true } }),
    ]);
  });

  it("shows a denied call and an expired approval as output-denied with a refused approval", async () => {
    const chat = new Conversation()
      .input("Wire twice")
      .answer(TOOL_USE("toolu_d", "wire", { amount: 1 }), TOOL_USE("toolu_e", "wire", { amount: 2 }))
      .call("toolu_d", { status: "waiting_approval" })
      .call("toolu_e", { status: "waiting_approval" })
      .status("waiting_approval")
      .answering()
      .call("toolu_d", { status: "error", is_error: true, output: "denied by a reviewer", decision: "denied" })
      .call("toolu_e", { status: "error", is_error: true, output: "denied: approval expired", decision: "expired" })
      .results()
      .answer({ type: "text", text: "Nothing was sent." })
      .status("idle", "end_turn");
    // The page refused the first; the second expired unanswered, and the history says it was not approved.
    const page = await lived(chat, [[{ approvalId: "toolu_d", approved: false }]]);
    const tools = (stored(chat) as UIMessage[])[1]!.parts.filter((part) => part.type === "dynamic-tool");
    expect(tools).toEqual([
      expect.objectContaining({ toolCallId: "toolu_d", state: "output-denied", approval: { id: "toolu_d", approved: false } }),
      expect.objectContaining({ toolCallId: "toolu_e", state: "output-denied", approval: { id: "toolu_e", approved: false } }),
    ]);
    expect(page[1]!.parts.filter((part) => part.type === "dynamic-tool")[0]).toEqual(tools[0]);
  });

  it("shows a failed call as output-error and a client tool as the page's own call", async () => {
    const chat = new Conversation()
      .input("Go")
      .answer(TOOL_USE("toolu_f", "fetch_page"))
      .call("toolu_f", { status: "error", is_error: true, output: "HTTP 500" })
      .results()
      .answer(TOOL_USE("toolu_c", "pick_color"))
      .call("toolu_c", { status: "waiting_tool_output" })
      .status("waiting_tool_output");
    const waiting = stored(chat, ["pick_color"]) as UIMessage[];
    expect(waiting).toEqual(await lived(chat, [], ["pick_color"]));
    const [failed, client] = waiting[1]!.parts.filter((part) => part.type === "dynamic-tool");
    expect(failed).toMatchObject({ state: "output-error", errorText: "HTTP 500", providerExecuted: true });
    expect(client).toMatchObject({ toolName: "pick_color", state: "input-available" });
    expect(client).not.toHaveProperty("providerExecuted");
  });

  it("keeps the newest messages a page can send back", () => {
    const chat = new Conversation();
    for (let i = 0; i < 600; i++) chat.input(`q${i}`).answer({ type: "text", text: `a${i}` });
    const history = chatHistory(chat.messages, chat.calls, new Set());
    expect(history).toHaveLength(1_000);
    expect(history.at(-1)).toMatchObject({ id: `answer-${chat.messages.at(-2)!.seq}` });
  });
});

describe("readChatHistory", () => {
  it("reads every page, keeps only what the newest messages need, and gives what chatHistory gives of the whole", async () => {
    const chat = new Conversation();
    for (let i = 0; i < 1_100; i++)
      chat
        .input(`q${i}`)
        .answer(TOOL_USE(`toolu_${i}`, "get_time"))
        .call(`toolu_${i}`, { status: "done", output: `t${i}` })
        .results()
        .answer({ type: "text", text: `a${i}` });
    const calls = [...chat.calls.values()];
    let pages = 0;
    const client = {
      listMessages: async (after: number, limit: number) => {
        pages++;
        const rest = chat.messages.filter((message) => message.seq > after);
        return { data: rest.slice(0, limit), next_cursor: rest.length > limit ? String(rest[limit - 1]!.seq) : null };
      },
      listToolCalls: async (cursor: string | null, limit: number) => {
        const from = cursor === null ? 0 : Number(cursor);
        return { data: calls.slice(from, from + limit), next_cursor: from + limit < calls.length ? String(from + limit) : null };
      },
    };
    const read = await readChatHistory(client, new Set());
    expect(pages).toBe(Math.ceil(chat.messages.length / 200));
    expect(read).toEqual(chatHistory(chat.messages, chat.calls, new Set()));
    expect(read).toHaveLength(1_000);
    expect(read.at(-1)!.parts.find((part) => part.type === "dynamic-tool")).toMatchObject({ toolCallId: "toolu_1099", output: "t1099" });
  });
});

describe("UiPartsFold", () => {
  it("builds the parts the ai package's reader builds, for every chunk kind a turn sends", async () => {
    const chunks: UiChunk[] = [
      { type: "start", messageId: "answer-1" },
      { type: "start-step" },
      { type: "reasoning-start", id: "reasoning-1-0" },
      { type: "reasoning-delta", id: "reasoning-1-0", delta: "think" },
      { type: "reasoning-end", id: "reasoning-1-0" },
      { type: "text-start", id: "text-1-1" },
      { type: "text-delta", id: "text-1-1", delta: "Hi" },
      { type: "text-end", id: "text-1-1" },
      ...["a", "b", "c", "d", "e"].flatMap((id) => [
        { type: "tool-input-start", toolCallId: id, toolName: "t", dynamic: true, providerExecuted: true },
        { type: "tool-input-available", toolCallId: id, toolName: "t", dynamic: true, providerExecuted: true, input: { id } },
      ]),
      { type: "finish-step" },
      { type: "tool-output-available", toolCallId: "a", output: "ok", dynamic: true },
      { type: "tool-output-error", toolCallId: "b", errorText: "bad", dynamic: true },
      { type: "tool-approval-request", approvalId: "c", toolCallId: "c" },
      { type: "tool-approval-request", approvalId: "d", toolCallId: "d" },
      { type: "tool-approval-response", approvalId: "d", approved: false },
      { type: "tool-output-denied", toolCallId: "d" },
      { type: "tool-approval-request", approvalId: "e", toolCallId: "e" },
      { type: "tool-approval-response", approvalId: "e", approved: true },
      { type: "finish", finishReason: "tool-calls" },
    ];
    const fold = new UiPartsFold();
    fold.add(chunks);
    const expected = await read(chunks);
    expect(JSON.parse(JSON.stringify(fold.parts))).toEqual(JSON.parse(JSON.stringify(expected.parts)));
    expect(new Set(fold.parts.map((part) => part.state))).toEqual(
      new Set([undefined, "done", "output-available", "output-error", "approval-requested", "output-denied", "approval-responded"]),
    );
  });
});
