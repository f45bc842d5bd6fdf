/**
 * Structured output through the public API, on both providers' mocks: the answer asked the
 * provider's way (a forced output tool, `response_format`), judged by the platform's validator,
 * corrected when invalid, and a run that cannot answer validly fails with `invalid_output`.
 */
import { describe, expect, it } from "vitest";
import type { Session } from "../../../src/session-config/types";
import { validateJson } from "../../../src/shared/json-schema/validator";
import { callJson, readProblem } from "../../support/api";
import { mockModel, type RecordedRequest, uniqueKey } from "../../support/mock-client";
import { caller, createSession, messagesOf, post, text, toolUse, waitForStatus } from "./helpers";

const RECEIPT = {
  type: "object",
  properties: { total: { type: "number", minimum: 0 }, currency: { type: "string", pattern: "^[A-Z]{3}$" } },
  required: ["total", "currency"],
  additionalProperties: false,
};

type AnthropicBody = {
  tools?: { name: string; input_schema: unknown }[];
  tool_choice?: unknown;
  messages: { role: string; content: unknown }[];
};
type ChatBody = { response_format?: unknown; messages: { role: string; content: unknown }[] };

const providers = [
  {
    name: "Anthropic",
    model: () => mockModel(uniqueKey("model")),
    id: (key: string) => key,
    answer: (value: unknown) => ({ content: [toolUse(`toolu_${crypto.randomUUID().slice(0, 8)}`, "respond", value)] }),
  },
  {
    name: "OpenAI-compatible",
    model: () => mockModel(uniqueKey("gpt-4o")),
    id: (key: string) => `openai:${key}`,
    answer: (value: unknown) => ({ content: [text(JSON.stringify(value))] }),
  },
] as const;

function sentText(request: RecordedRequest): string {
  return JSON.stringify((request.body as { messages: unknown }).messages);
}

describe("structured output", () => {
  it("asks Anthropic with a forced output tool and ends done with the answer in output", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, { input: "Read the receipt.", model: model.key, output_schema: RECEIPT });
    expect(session.output_schema).toEqual(RECEIPT);
    const done = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", stop_reason: "end_turn", error: null });
    expect(validateJson(RECEIPT, done.output)).toEqual({ valid: true });

    const [request] = await model.requests();
    const body = request!.body as AnthropicBody;
    expect(body.tools).toEqual([expect.objectContaining({ name: "respond", input_schema: RECEIPT })]);
    expect(body.tool_choice).toEqual({ type: "tool", name: "respond" });
    // The answer is kept as JSON text: the history holds no tool call without a result.
    const history = await messagesOf(who, session.id);
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: JSON.stringify(done.output) }] });
  });

  it("asks an OpenAI-compatible server with response_format: json_schema and ends done with the answer in output", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("gpt-4o"));
    const session = await createSession(who, { input: "Read the receipt.", model: `openai:${model.key}`, output_schema: RECEIPT });
    const done = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", stop_reason: "end_turn" });
    expect(validateJson(RECEIPT, done.output)).toEqual({ valid: true });
    const body = (await model.requests())[0]!.body as ChatBody;
    // Closed and fully required: strict mode applies.
    expect(body.response_format).toEqual({ type: "json_schema", json_schema: { name: "output", schema: RECEIPT, strict: true } });
  });

  it("lets the model use the session's tools first: Anthropic must call a tool, the output tool once it answers", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [toolUse("toolu_t1", "get_time")] } },
      { reply: providers[0].answer({ total: 3, currency: "EUR" }) },
    );
    const session = await createSession(who, {
      input: "When?",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time" }],
      output_schema: RECEIPT,
    });
    const done = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", output: { total: 3, currency: "EUR" }, usage: { steps: 2 } });
    for (const request of await model.requests()) {
      const body = request.body as AnthropicBody;
      expect(body.tool_choice).toEqual({ type: "any" });
      expect(body.tools!.map((tool) => tool.name)).toEqual(["get_time", "respond"]);
    }
  });

  for (const provider of providers) {
    it(`corrects an invalid first answer on the next step (${provider.name})`, async () => {
      const who = await caller();
      const model = provider.model();
      await model.script(
        { reply: provider.answer({ total: -1, currency: "euro" }) },
        { reply: provider.answer({ total: 12.5, currency: "EUR" }) },
      );
      const session = await createSession(who, { input: "Read the receipt.", model: provider.id(model.key), output_schema: RECEIPT });
      const done = await waitForStatus(who, session.id, ["done", "failed"]);
      expect(done).toMatchObject({
        status: "done",
        stop_reason: "end_turn",
        output: { total: 12.5, currency: "EUR" },
        usage: { steps: 2 },
      });

      // The second call was told what was wrong with the first answer.
      const requests = await model.requests();
      expect(requests).toHaveLength(2);
      expect(sentText(requests[1]!)).toContain("[Output check]");
      expect(sentText(requests[1]!)).toContain("/currency");
      const history = await messagesOf(who, session.id);
      expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expect((history[2]!.content[0] as { text: string }).text).toMatch(/^\[Output check\] .*does not match output_schema/);
    });

    it(`ends failed with invalid_output after 3 invalid answers (${provider.name})`, async () => {
      const who = await caller();
      const model = provider.model();
      const impossible = { type: "object", properties: { n: { type: "integer", minimum: 5, maximum: 1 } }, required: ["n"] };
      await model.script({ reply: provider.answer({ n: 3 }), repeat: 5 });
      const session = await createSession(who, { input: "Pick n.", model: provider.id(model.key), output_schema: impossible });
      const failed = await waitForStatus(who, session.id, ["done", "failed"]);
      expect(failed).toMatchObject({ status: "failed", stop_reason: "invalid_output", output: null, usage: { steps: 3 } });
      expect(failed.error).toMatch(/does not match output_schema: .*\/n/);
      expect(await model.requests()).toHaveLength(3);
    });

    it(`ends failed with invalid_output at the step limit, with the last validation error (${provider.name})`, async () => {
      const who = await caller();
      const model = provider.model();
      await model.script({ reply: provider.answer({ total: "free" }), repeat: 3 });
      const session = await createSession(who, {
        input: "Read it.",
        model: provider.id(model.key),
        output_schema: RECEIPT,
        limits: { max_steps_per_run: 2 },
      });
      const failed = await waitForStatus(who, session.id, ["done", "failed"]);
      expect(failed).toMatchObject({ status: "failed", stop_reason: "invalid_output", output: null, usage: { steps: 2 } });
      expect(failed.error).toMatch(/step limit \(2 model steps\).*does not match output_schema/);
      expect(await model.requests()).toHaveLength(2);
    });
  }

  it("takes a schema per message: the session's by default, the message's own, or null for a free answer", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, { model: model.key, output_schema: RECEIPT });
    const other = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };

    const run = async (body: Record<string, unknown>): Promise<Session> => {
      const res = await post(who, `/v1/sessions/${session.id}/messages`, body);
      expect(res.status).toBe(202);
      return waitForStatus(who, session.id, ["done", "failed"]);
    };
    const first = await run({ input: "one" });
    expect(first.output_schema).toEqual(RECEIPT);
    expect(validateJson(RECEIPT, first.output).valid).toBe(true);
    const second = await run({ input: "two", output_schema: other });
    expect(second.output_schema).toEqual(other);
    expect(validateJson(other, second.output).valid).toBe(true);
    const third = await run({ input: "three", output_schema: null });
    expect(third).toMatchObject({ status: "done", output_schema: null, output: null });
    const bodies = (await model.requests()).map((r) => r.body as AnthropicBody);
    expect(bodies.map((b) => b.tools?.[0]?.input_schema ?? null)).toEqual([RECEIPT, other, null]);
  });

  it("keeps a queued message's schema for its own run", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ delay_ms: 400, reply: { content: [text("free answer")] } });
    const session = await createSession(who, { input: "first", model: model.key });
    await model.waitForRequests(1);
    const queued = await post(who, `/v1/sessions/${session.id}/messages`, {
      input: "second",
      if_running: "enqueue",
      output_schema: RECEIPT,
    });
    expect(queued.status).toBe(202);
    await model.waitForRequests(2);
    const done = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", output_schema: RECEIPT });
    expect(validateJson(RECEIPT, done.output).valid).toBe(true);
    const bodies = (await model.requests()).map((r) => r.body as AnthropicBody);
    expect(bodies.map((b) => b.tool_choice ?? null)).toEqual([null, { type: "tool", name: "respond" }]);
  });

  it.each([
    ["a schema that is not an object at the top", { type: "array" }, "body.output_schema"],
    [
      "a pattern RE2 cannot run",
      { type: "object", properties: { code: { type: "string", pattern: "^(a)\\1$" } } },
      "body.output_schema.properties.code.pattern",
    ],
    [
      "a $ref that points nowhere",
      { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      "body.output_schema.properties.a.$ref",
    ],
  ])("refuses %s with a 400 naming the field", async (_name, schema, path) => {
    const who = await caller();
    const res = await callJson("/v1/sessions", "POST", { input: "hi", output_schema: schema }, who.headers);
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.map((e) => e.path)).toContain(path);
    const session = await createSession(who, {});
    const message = await post(who, `/v1/sessions/${session.id}/messages`, { input: "hi", output_schema: schema });
    expect(message.status).toBe(400);
    expect((await readProblem(message)).errors?.map((e) => e.path)).toContain(path);
  });
});
