/**
 * What a backend reads of a finished session without its messages: `answer` (the last run's final
 * text) beside `output`, and `cost_usd`, its tokens and its sub-agents' at its model's price.
 */
import { describe, expect, it } from "vitest";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { agentOn, agentTool, author, PROVIDERS } from "../subagents/helpers";
import { caller, createSession, getJson, text, toolUse, waitForStatus } from "./helpers";
import type { Session } from "../../../src/session-config/types";

/** Priced by the built-in table at $3 in and $15 out per million tokens. */
const sonnet = () => mockModel(uniqueKey("claude-sonnet-4"));
const usage = (input_tokens: number, output_tokens: number) => ({ input_tokens, output_tokens });

describe("a session's answer and cost", () => {
  it("shows a plain-text run's final text as answer, with output null, and its cost", async () => {
    const who = await caller();
    const model = sonnet();
    await model.script({ reply: { content: [text("Order ord_123456 ships on Friday.")], usage: usage(1000, 100) } });
    const session = await createSession(who, { input: "Where is my order?", model: model.key });
    expect(session).toMatchObject({ answer: null });
    const done = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", output: null, answer: "Order ord_123456 ships on Friday." });
    // 1,000 × $3 + 100 × $15, per million.
    expect(done.cost_usd).toBe(0.0045);
  });

  it("has no answer while a run is not done, and a null cost for a model without a price", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("Calling."), toolUse("toolu_1", "confirm", {})] } });
    const session = await createSession(who, {
      input: "go",
      model: model.key,
      tools: [{ type: "client", name: "confirm", description: "Asks.", input_schema: { type: "object", properties: {} } }],
    });
    const waiting = await waitForStatus(who, session.id, ["waiting_tool_output", "done", "failed"]);
    expect(waiting).toMatchObject({ status: "waiting_tool_output", answer: null, cost_usd: null });
  });

  it("adds its sub-agents' tokens to its cost, as any reader of the session sees it", async () => {
    const who = await author();
    const child = await agentOn(who, PROVIDERS[0]);
    await child.model.script({ reply: { content: [text("Bicycles date from 1817.")], usage: usage(2000, 0) } });
    const model = sonnet();
    await model.script(
      { reply: { content: [toolUse("toolu_research", "research", { input: "history of the bicycle" })], usage: usage(1000, 100) } },
      { reply: { content: [text("They date from 1817.")], usage: usage(1000, 100) } },
    );
    const parent = await createSession(who, {
      input: "When were bicycles invented?",
      model: model.key,
      tools: [agentTool("research", child.id)],
    });
    const done = await waitForStatus(who, parent.id, ["done", "failed"], 20_000);
    expect(done).toMatchObject({ status: "done", answer: "They date from 1817." });
    // 4,000 tokens in (the child's 2,000 among them) × $3 + 200 out × $15, per million, at the parent's model.
    expect(done.cost_usd).toBe(0.015);
    const reader = await caller(who.tenantId, ["sessions:read"], who.subject);
    expect((await getJson<Session>(reader, `/v1/sessions/${parent.id}`)).cost_usd).toBe(0.015);
  });
});
