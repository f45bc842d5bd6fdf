/**
 * A chat whose session was deleted, started again under the same chat id: a new session, listed
 * like any other, holding only what was said since.
 */
import { describe, expect, it } from "vitest";
import { call, callJson } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { getJson, text, type Caller } from "../sessions/helpers";
import { author, createAgent } from "../agents/helpers";
import type { Session } from "../../../src/session-config/types";

const user = (words: string) => ({ id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: words }] });

/** Sends one turn and reads its stream to the end. */
async function turn(who: Caller, agentId: string, chatId: string, words: string): Promise<void> {
  const res = await callJson(
    `/v1/agents/${agentId}/chat`,
    "POST",
    { id: chatId, messages: [user(words)], trigger: "submit-message" },
    who.headers,
  );
  expect(res.status).toBe(200);
  await res.text();
}

/** The sessions `GET /v1/sessions` lists for the chat, once the index holds `count` of them (it learns of them as they report). */
async function listedFor(who: Caller, chatId: string, count: number): Promise<Session[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const listed = (await getJson<{ data: Session[] }>(who, `/v1/sessions?metadata[chat_id]=${chatId}`)).data;
    if (listed.length === count && listed.every((session) => session.status === "done")) return listed;
    if (Date.now() > deadline) return listed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a deleted chat started again", () => {
  it("is a new session under the chat's id, listed, without the deleted messages", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("first answer")] } }, { reply: { content: [text("second answer")] } });
    const agent = await createAgent(who, { name: uniqueKey("helper"), model: model.key });
    const chatId = uniqueKey("chat");

    await turn(who, agent.id, chatId, "first question");
    const [first] = await listedFor(who, chatId, 1);
    expect(first).toBeDefined();
    expect((await call(`/v1/sessions/${first!.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect(await listedFor(who, chatId, 0)).toEqual([]);

    await turn(who, agent.id, chatId, "second question");
    const again = await listedFor(who, chatId, 1);
    expect(again.map((session) => session.id)).toEqual([first!.id]);
    const messages = (
      await getJson<{ data: { role: string; content: { type: string; text?: string }[] }[] }>(who, `/v1/sessions/${first!.id}/messages`)
    ).data;
    const said = messages.flatMap((message) => message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])));
    expect(said).toEqual(["second question", "second answer"]);
  });
});
