/**
 * The AI SDK chat transport end to end against `wrangler dev`, with the published `ai` package
 * unchanged: `DefaultChatTransport` with `readUIMessageStream`, and `AbstractChat` (what `useChat`
 * runs) for the approval round trip and a client tool's output; a stream cut mid-answer resumed
 * with `reconnectToStream`; a `useChat` page in Chromium reloaded and restored from the history route.
 */
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  readUIMessageStream,
  type ChatState,
  type ChatStatus,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { chatEndpoint, chatMessages, createPlatformClient, type ChatUIMessage } from "@agent-platform/sdk";
import { beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { say } from "./support/scenario";
import { launchChromium } from "./support/browser";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { serveUseChatPage } from "./support/use-chat-server";
import { tokenMinter } from "./support/tokens";

const SCOPES = ["sessions:read", "sessions:write", "agents:write"] as const;

function callTool(id: string, name: string, input: Record<string, unknown> = {}): ModelStep {
  return { reply: { content: [{ type: "tool_use", id, name, input }] } };
}

/** The smallest `ChatState` (what `useChat` keeps in React state), to run the SDK's own `AbstractChat`. */
class MemoryState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage) => void (this.messages[index] = message);
  snapshot = <T>(value: T): T => structuredClone(value);
}

class NodeChat extends AbstractChat<UIMessage> {
  readonly memory: MemoryState;
  constructor({ memory, ...options }: Omit<ConstructorParameters<typeof AbstractChat<UIMessage>>[0], "state"> & { memory: MemoryState }) {
    super({ ...options, state: memory });
    this.memory = memory;
  }
}

async function lastMessage(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}

function toolParts(message: UIMessage | undefined) {
  return (message?.parts ?? []).filter((part) => part.type === "dynamic-tool") as Extract<
    UIMessage["parts"][number],
    { type: "dynamic-tool" }
  >[];
}

function text(message: UIMessage | undefined): string {
  return (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}

describe("AI SDK chat", () => {
  let stack: SharedStack;
  let mint: Awaited<ReturnType<typeof tokenMinter>>;

  beforeAll(async () => {
    stack = await sharedStack();
    mint = await tokenMinter(stack.platform.signingKey);
  });

  async function world(tools: unknown[], steps: ModelStep[], subject = "chat-user") {
    const tenant = uniqueName("tenant");
    const token = await mint({ tenantId: tenant, subject, scopes: [...SCOPES] });
    const model = stack.mock.model(uniqueName("model"));
    await model.script(...steps);
    const created = await fetch(`${stack.platform.url}/v1/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: uniqueName("helper"), description: "helps", model: model.key, tools }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const agent = (await created.json()) as { id: string };
    const api = chatEndpoint(`${stack.platform.url}/`, agent.id);
    const transport = new DefaultChatTransport({ api, headers: { authorization: `Bearer ${token}` } });
    return { tenant, token, agent, api, transport, model };
  }

  function userMessage(words: string): UIMessage {
    return { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: words }] };
  }

  it("streams a tool-using run as UI message parts, and the same chat id continues the session", async () => {
    const { transport, token } = await world(
      [{ type: "builtin", name: "get_time" }],
      [callTool("toolu_t", "get_time"), say("It is noon."), say("Still noon.")],
    );
    const chatId = uniqueName("chat");
    const chunks: UIMessageChunk[] = [];
    const stream = await transport.sendMessages({
      chatId,
      messages: [userMessage("what time is it?")],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
    });
    const [forParts, forMessage] = stream.tee();
    const collecting = (async () => {
      const reader = forParts.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    })();
    const message = await lastMessage(forMessage);
    await collecting;

    expect(chunks.map((chunk) => chunk.type)).toEqual(
      expect.arrayContaining([
        "start",
        "start-step",
        "tool-input-start",
        "tool-input-available",
        "finish-step",
        "tool-output-available",
        "text-start",
        "text-delta",
        "text-end",
        "finish",
      ]),
    );
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    expect(toolParts(message)).toEqual([
      expect.objectContaining({ toolName: "get_time", state: "output-available", toolCallId: "toolu_t" }),
    ]);
    expect(text(message)).toBe("It is noon.");

    const again = await lastMessage(
      await transport.sendMessages({
        chatId,
        messages: [userMessage("what time is it?"), message!, userMessage("and now?")],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    expect(text(again)).toBe("Still noon.");
    const sessions = await fetch(`${stack.platform.url}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } });
    const listed = ((await sessions.json()) as { data: { id: string }[] }).data;
    expect(listed).toHaveLength(1);
    const session = await fetch(`${stack.platform.url}/v1/sessions/${listed[0]!.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(await session.json()).toMatchObject({ metadata: { chat_id: chatId }, status: "done" });
  });

  it("asks for approval, and the approval response in the next request lets the call run", async () => {
    const { transport } = await world(
      [{ type: "builtin", name: "get_time", requires_approval: true }],
      [callTool("toolu_a", "get_time"), say("Approved and done.")],
    );
    const memory = new MemoryState();
    const chat = new NodeChat({
      id: uniqueName("chat"),
      transport,
      memory,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: "what time is it?" });
    const asking = toolParts(memory.messages.at(-1));
    expect(asking).toEqual([expect.objectContaining({ state: "approval-requested", toolCallId: "toolu_a" })]);

    await chat.addToolApprovalResponse({ id: asking[0]!.approval!.id, approved: true });
    await waitUntil(() => memory.status === "ready" && text(memory.messages.at(-1)).length > 0);
    expect(memory.error).toBeUndefined();
    expect(toolParts(memory.messages.at(-1))).toEqual([expect.objectContaining({ state: "output-available", toolCallId: "toolu_a" })]);
    expect(text(memory.messages.at(-1))).toBe("Approved and done.");
  });

  it("takes a client tool's output from addToolOutput as the call's output", async () => {
    const pick = {
      type: "client",
      name: "pick_color",
      description: "asks the page for a color",
      input_schema: { type: "object", properties: {} },
    };
    const { transport, model } = await world([pick], [callTool("toolu_c", "pick_color"), say("You picked teal.")]);
    const memory = new MemoryState();
    let chat: NodeChat;
    chat = new NodeChat({
      id: uniqueName("chat"),
      transport,
      memory,
      onToolCall: ({ toolCall }) => {
        if (toolCall.toolName === "pick_color")
          void chat.addToolOutput({ tool: "pick_color", toolCallId: toolCall.toolCallId, output: "teal" });
      },
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    });
    await chat.sendMessage({ text: "pick a color" });
    await waitUntil(() => memory.status === "ready" && text(memory.messages.at(-1)) === "You picked teal.");
    const second = (await model.requests())[1]?.body;
    expect(JSON.stringify(second)).toContain("teal");
  });

  it("runs a useChat page in Chromium through a tool call's approval to the answer", async () => {
    const { token, agent } = await world(
      [{ type: "builtin", name: "get_time", requires_approval: true }],
      [callTool("toolu_b", "get_time"), say("Noon, from the browser.")],
    );
    const server = await serveUseChatPage(stack.platform.url);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const query = new URLSearchParams({ api: `/v1/agents/${agent.id}/chat`, token, chat: uniqueName("chat") });
      await page.goto(`${server.url}/?${query}`);
      await page.fill("input[name=draft]", "what time is it?");
      await page.press("input[name=draft]", "Enter");
      await page.click("button.approve", { timeout: 15_000 });
      await page.waitForSelector("text=Noon, from the browser.", { timeout: 15_000 });
      expect(await page.textContent(".assistant")).toContain("get_time: output-available");
      expect(await page.locator("[role=alert]").count()).toBe(0);
    } finally {
      await browser.close();
      await server.close();
    }
  });

  it("restores a reloaded useChat page in Chromium from the history route, its approval included, and goes on without duplicates", async () => {
    const { token, agent } = await world(
      [{ type: "builtin", name: "get_time", requires_approval: true }],
      [callTool("toolu_h", "get_time"), say("Noon, before the reload."), say("Still noon, after it.")],
    );
    const server = await serveUseChatPage(stack.platform.url);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const historyCalls: number[] = [];
      page.on("response", (response) => {
        if (/\/chat\/[^/]+\/messages$/.test(new URL(response.url()).pathname)) historyCalls.push(response.status());
      });
      const chatId = uniqueName("chat");
      const query = new URLSearchParams({ api: `/v1/agents/${agent.id}/chat`, token, chat: chatId });
      await page.goto(`${server.url}/?${query}`);
      await page.fill("input[name=draft]", "what time is it?");
      await page.press("input[name=draft]", "Enter");
      await page.click("button.approve", { timeout: 15_000 });
      await page.waitForSelector("text=Noon, before the reload.", { timeout: 15_000 });
      const before = await page
        .locator("main > div")
        .evaluateAll((nodes) => nodes.map((node) => [node.className, node.getAttribute("data-id"), node.textContent]));

      await page.reload();
      await page.waitForSelector("text=Noon, before the reload.", { timeout: 15_000 });
      expect(historyCalls).toEqual([404, 200]);
      const after = await page
        .locator("main > div")
        .evaluateAll((nodes) => nodes.map((node) => [node.className, node.getAttribute("data-id"), node.textContent]));
      expect(after.map(([role, , shown]) => [role, shown])).toEqual(before.map(([role, , shown]) => [role, shown]));
      expect(after.map(([role]) => role)).toEqual(["user", "assistant"]);
      expect(after[1]![2]).toContain("get_time: output-available (approved)");
      // The answer keeps the id its stream gave; only the page's own user message id is the history's.
      expect(after[1]![1]).toBe(before[1]![1]);
      // The SDK reads the same history, typed as the `ai` package's messages when asked.
      const client = createPlatformClient({ baseUrl: stack.platform.url, credential: token });
      const restored = await chatMessages<UIMessage>(client, agent.id, chatId);
      expectTypeOf(restored).toEqualTypeOf<UIMessage[]>();
      expect(restored.map((message) => message.id)).toEqual(after.map(([, id]) => id));
      const none = await chatMessages(client, agent.id, "never-used");
      expectTypeOf(none).toEqualTypeOf<ChatUIMessage[]>();
      expect(none).toEqual([]);

      await page.fill("input[name=draft]", "and now?");
      await page.press("input[name=draft]", "Enter");
      await page.waitForSelector("text=Still noon, after it.", { timeout: 15_000 });
      const roles = await page.locator("main > div").evaluateAll((nodes) => nodes.map((node) => node.className));
      expect(roles).toEqual(["user", "assistant", "user", "assistant"]);
      expect(await page.locator("[role=alert]").count()).toBe(0);
    } finally {
      await browser.close();
      await server.close();
    }
  });

  it("restores a useChat page reloaded while a call waits for approval, and the approval given after the reload finishes that answer", async () => {
    const { token, agent } = await world(
      [{ type: "builtin", name: "get_time", requires_approval: true }],
      [callTool("toolu_w", "get_time"), say("Approved after the reload.")],
    );
    const server = await serveUseChatPage(stack.platform.url);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const query = new URLSearchParams({ api: `/v1/agents/${agent.id}/chat`, token, chat: uniqueName("chat") });
      await page.goto(`${server.url}/?${query}`);
      await page.fill("input[name=draft]", "what time is it?");
      await page.press("input[name=draft]", "Enter");
      await page.waitForSelector("button.approve", { timeout: 15_000 });
      const answerId = await page.locator("main > div.assistant").getAttribute("data-id");

      await page.reload();
      await page.click("button.approve", { timeout: 15_000 });
      await page.waitForSelector("text=Approved after the reload.", { timeout: 15_000 });
      await page.waitForSelector("main[data-status=ready]", { timeout: 15_000 });
      const shown = await page
        .locator("main > div")
        .evaluateAll((nodes) => nodes.map((node) => [node.className, node.getAttribute("data-id")]));
      expect(shown).toEqual([
        ["user", expect.any(String)],
        ["assistant", answerId],
      ]);
      expect(await page.locator(".assistant p.tool").allTextContents()).toEqual(["get_time: output-available (approved)"]);
      expect(await page.locator("[role=alert]").count()).toBe(0);
    } finally {
      await browser.close();
      await server.close();
    }
  });

  it("restores a useChat page reloaded while the answer after an approval is written, and finishes that answer once", async () => {
    const slow: ModelStep = {
      reply: { content: [{ type: "text", text: "Written slowly, after the approval." }] },
      delay_ms: 2_000,
      stream: { chunk_chars: 4, event_delay_ms: 150 },
    };
    const { token, agent } = await world(
      [{ type: "builtin", name: "get_time", requires_approval: true }],
      [callTool("toolu_s", "get_time"), slow],
    );
    const server = await serveUseChatPage(stack.platform.url);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const query = new URLSearchParams({ api: `/v1/agents/${agent.id}/chat`, token, chat: uniqueName("chat") });
      await page.goto(`${server.url}/?${query}`);
      await page.fill("input[name=draft]", "what time is it?");
      await page.press("input[name=draft]", "Enter");
      await page.click("button.approve", { timeout: 15_000 });
      await page.waitForSelector("text=get_time: output-available (approved)", { timeout: 15_000 });
      const answerId = await page.locator("main > div.assistant").getAttribute("data-id");

      // Reloaded before the model's last step is written: history, then the answer replayed and followed.
      await page.reload();
      await page.waitForSelector("text=Written slowly, after the approval.", { timeout: 20_000 });
      await page.waitForSelector("main[data-status=ready]", { timeout: 15_000 });
      const shown = await page
        .locator("main > div")
        .evaluateAll((nodes) => nodes.map((node) => [node.className, node.getAttribute("data-id")]));
      expect(shown).toEqual([
        ["user", expect.any(String)],
        ["assistant", answerId],
      ]);
      expect(await page.locator(".assistant p.tool").allTextContents()).toEqual(["get_time: output-available (approved)"]);
      expect(await page.locator(".assistant p.text").allTextContents()).toEqual(["Written slowly, after the approval."]);
      expect(await page.locator("[role=alert]").count()).toBe(0);
    } finally {
      await browser.close();
      await server.close();
    }
  });

  it("resumes a stream cut mid-answer from the event log", async () => {
    const slow: ModelStep = {
      reply: { content: [{ type: "text", text: "A long answer, told slowly, word by word." }] },
      stream: { chunk_chars: 4, event_delay_ms: 150 },
    };
    const { transport } = await world([{ type: "builtin", name: "get_time" }], [callTool("toolu_r", "get_time"), slow]);
    const chatId = uniqueName("chat");
    const abort = new AbortController();
    const stream = await transport.sendMessages({
      chatId,
      messages: [userMessage("tell me")],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: abort.signal,
    });
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended before any text");
      if (value.type === "text-delta") break;
    }
    abort.abort();
    await reader.cancel().catch(() => undefined);

    const resumed = await transport.reconnectToStream({ chatId });
    expect(resumed).not.toBeNull();
    const message = await lastMessage(resumed!);
    expect(toolParts(message)).toEqual([expect.objectContaining({ toolCallId: "toolu_r", state: "output-available" })]);
    expect(text(message)).toBe("A long answer, told slowly, word by word.");
    // The turn is over: nothing more to resume.
    expect(await transport.reconnectToStream({ chatId })).toBeNull();
  });
});

async function waitUntil(done: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
