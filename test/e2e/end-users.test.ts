/**
 * End users against `wrangler dev`, each with the published `ai` package's `DefaultChatTransport`
 * unchanged and a token its tenant's backend minted (`POST /v1/auth/end-user-token`): two end
 * users of one tenant cannot see, continue, list or stream each other's chats and sessions (404),
 * nor read or write memory outside `users.<subject>`, through the API or through a chat whose
 * model asks for the other's namespace.
 */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { chatEndpoint, createPlatformClient, endUsers } from "@agent-platform/sdk";
import { beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { say } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

const BACKEND_SCOPES = ["sessions:read", "sessions:write", "agents:write", "memory:read", "memory:write", "end_users:issue"] as const;

function callTools(...calls: [string, string, Record<string, unknown>][]): ModelStep {
  return { reply: { content: calls.map(([id, name, input]) => ({ type: "tool_use", id, name, input })) } };
}

function userMessage(words: string): UIMessage {
  return { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: words }] };
}

async function lastMessage(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}

function text(message: UIMessage | undefined): string {
  return (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}

function toolParts(message: UIMessage | undefined) {
  return (message?.parts ?? []).filter((part) => part.type === "dynamic-tool") as Extract<
    UIMessage["parts"][number],
    { type: "dynamic-tool" }
  >[];
}

describe("end users of one tenant, each with its own chat transport", () => {
  let stack: SharedStack;
  let mint: Awaited<ReturnType<typeof tokenMinter>>;

  beforeAll(async () => {
    stack = await sharedStack();
    mint = await tokenMinter(stack.platform.signingKey);
  });

  async function tenantWithAgent(steps: ModelStep[]) {
    const tenant = uniqueName("eu");
    const backendToken = await mint({ tenantId: tenant, subject: "backend", scopes: [...BACKEND_SCOPES] });
    const backend = createPlatformClient({ baseUrl: stack.platform.url, credential: backendToken });
    const model = stack.mock.model(uniqueName("model"));
    await model.script(...steps);
    const created = await fetch(`${stack.platform.url}/v1/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${backendToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: uniqueName("concierge"),
        model: model.key,
        system: "The tenant's own prompt.",
        memory: { namespaces: [["users"]], write: [["users"]] },
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const agent = (await created.json()) as { id: string };
    const user = async (subject: string) => {
      const token = (
        await endUsers.issueToken(backend, { subject, scopes: ["sessions:read", "sessions:write", "memory:read", "memory:write"] })
      ).access_token;
      const headers = { authorization: `Bearer ${token}` };
      const transport = new DefaultChatTransport({ api: chatEndpoint(`${stack.platform.url}/`, agent.id), headers });
      return { subject, token, headers, transport };
    };
    return { tenant, backendToken, agent, alice: await user("alice"), bob: await user("bob") };
  }

  const get = (path: string, headers: Record<string, string>) => fetch(`${stack.platform.url}${path}`, { headers });
  const send = (path: string, method: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${stack.platform.url}${path}`, {
      method,
      headers: { ...headers, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it("cannot see, continue, list or stream each other's chats and sessions", async () => {
    const { alice, bob } = await tenantWithAgent([say("Hello Alice."), say("Hello Bob."), say("Alice again.")]);
    const chatId = uniqueName("chat");
    const first = await lastMessage(
      await alice.transport.sendMessages({
        chatId,
        messages: [userMessage("hi, I am Alice")],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    expect(text(first)).toBe("Hello Alice.");
    const aliceSessions = ((await (await get("/v1/sessions", alice.headers)).json()) as { data: { id: string; created_by: string }[] })
      .data;
    expect(aliceSessions).toEqual([expect.objectContaining({ created_by: "end_user:alice" })]);
    const aliceSession = aliceSessions[0]!.id;

    // Bob cannot reach it by its id, on any route.
    for (const path of [
      `/v1/sessions/${aliceSession}`,
      `/v1/sessions/${aliceSession}/messages`,
      `/v1/sessions/${aliceSession}/events`,
      `/v1/sessions/${aliceSession}/tool-calls`,
    ]) {
      const res = await get(path, bob.headers);
      expect(res.status, path).toBe(404);
      await res.body?.cancel();
    }
    expect((await send(`/v1/sessions/${aliceSession}/messages`, "POST", bob.headers, { input: "let me in" })).status).toBe(404);
    expect((await send(`/v1/sessions/${aliceSession}/fork`, "POST", bob.headers, {})).status).toBe(404);
    expect((await send(`/v1/sessions/${aliceSession}`, "DELETE", bob.headers)).status).toBe(404);
    // Nor list it, nor stream it: the same chat id names a chat of his own, which has no turn under way.
    expect(((await (await get("/v1/sessions", bob.headers)).json()) as { data: unknown[] }).data).toEqual([]);
    expect(await bob.transport.reconnectToStream({ chatId })).toBeNull();
    // Nor continue it: his message with her chat id starts his own chat.
    const his = await lastMessage(
      await bob.transport.sendMessages({
        chatId,
        messages: [userMessage("hi, I am Bob")],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    expect(text(his)).toBe("Hello Bob.");
    const bobSessions = ((await (await get("/v1/sessions", bob.headers)).json()) as { data: { id: string; created_by: string }[] }).data;
    expect(bobSessions).toEqual([expect.objectContaining({ created_by: "end_user:bob" })]);
    expect(bobSessions[0]!.id).not.toBe(aliceSession);
    expect((await get(`/v1/sessions/${bobSessions[0]!.id}`, alice.headers)).status).toBe(404);

    // Alice's chat goes on, untouched by Bob, and shows her the session without the tenant's prompt.
    const again = await lastMessage(
      await alice.transport.sendMessages({
        chatId,
        messages: [userMessage("hi, I am Alice"), first!, userMessage("still there?")],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    expect(text(again)).toBe("Alice again.");
    const messages = ((await (await get(`/v1/sessions/${aliceSession}/messages`, alice.headers)).json()) as { data: { role: string }[] })
      .data;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const shown = (await (await get(`/v1/sessions/${aliceSession}`, alice.headers)).json()) as { system: string | null };
    expect(shown.system).toBeNull();
    // Agents are the tenant's: no listing, no definition.
    expect((await get("/v1/agents", alice.headers)).status).toBe(403);
  }, 60_000);

  it("cannot reach memory outside users.<subject>, through the API or through a chat whose model names another namespace", async () => {
    const { backendToken, alice, bob } = await tenantWithAgent([
      callTools(
        ["toolu_1", "memory_put", { key: "secret", value: { note: "planted by alice" }, namespace: ["users", "bob"] }],
        ["toolu_2", "memory_get", { key: "diary", namespace: ["users", "bob"] }],
        ["toolu_3", "memory_search", { query: "diary", namespace: ["users"] }],
        ["toolu_4", "memory_put", { key: "prefs", value: { language: "French" } }],
      ),
      say("Saved."),
    ]);
    const backend = { authorization: `Bearer ${backendToken}` };
    expect(
      (await send("/v1/memory/items", "PUT", bob.headers, { namespace: ["users", "bob"], key: "diary", value: { note: "bob's diary" } }))
        .status,
    ).toBe(200);

    // Through the API: Bob's namespace and the tenant's root are outside Alice's reach.
    expect((await get("/v1/memory/items?namespace=users.bob&key=diary", alice.headers)).status).toBe(403);
    expect(
      (await send("/v1/memory/items", "PUT", alice.headers, { namespace: ["users", "bob"], key: "diary", value: { note: "overwritten" } }))
        .status,
    ).toBe(403);
    expect(
      (await send("/v1/memory/items", "PUT", alice.headers, { namespace: ["shared"], key: "faq", value: { note: "hers" } })).status,
    ).toBe(403);
    const searched = (await (
      await send("/v1/memory/search", "POST", alice.headers, { namespace_prefix: ["users"], query: "diary" })
    ).json()) as { data: unknown[] };
    expect(searched.data).toEqual([]);

    // Through a chat: every call outside her namespace is an error result; her own write lands in users.alice.
    const reply = await lastMessage(
      await alice.transport.sendMessages({
        chatId: uniqueName("chat"),
        messages: [userMessage("remember things")],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    expect(text(reply)).toBe("Saved.");
    const parts = toolParts(reply);
    expect(parts.map((part) => [part.toolCallId, part.state])).toEqual([
      ["toolu_1", "output-error"],
      ["toolu_2", "output-error"],
      ["toolu_3", "output-error"],
      ["toolu_4", "output-available"],
    ]);
    const diary = (await (await get("/v1/memory/items?namespace=users.bob&key=diary", backend)).json()) as { value: unknown };
    expect(diary.value).toEqual({ note: "bob's diary" });
    expect((await get("/v1/memory/items?namespace=users.bob&key=secret", backend)).status).toBe(404);
    const prefs = (await (await get("/v1/memory/items?namespace=users.alice&key=prefs", alice.headers)).json()) as {
      value: unknown;
      created_by: string;
    };
    expect(prefs.value).toEqual({ language: "French" });
    // Bob cannot read what Alice's chat wrote.
    expect((await get("/v1/memory/items?namespace=users.alice&key=prefs", bob.headers)).status).toBe(403);
  }, 60_000);
});
