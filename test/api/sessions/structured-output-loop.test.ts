/**
 * Structured output with the rest of the loop, on both providers' mocks: the context window's
 * summary units (never asked for the answer), streamed text (the answer is never streamed, it
 * arrives whole), and MCP tools (used first, then the answer).
 */
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { validateJson } from "../../../src/shared/json-schema/validator";
import { call } from "../../support/api";
import { deltaText, type Watch, watchSse } from "../../support/event-client";
import { mockModel, type RecordedRequest, uniqueKey } from "../../support/mock-client";
import { type Caller, caller, createSession, messagesOf, post, text, toolUse, waitForStatus } from "./helpers";

type Body = { tools?: { name?: string; function?: { name: string } }[]; tool_choice?: unknown; response_format?: unknown };

const PROVIDERS = [
  {
    name: "Anthropic",
    id: (key: string) => key,
    answer: (value: unknown) => ({ content: [toolUse(`toolu_${crypto.randomUUID().slice(0, 8)}`, "respond", value)] }),
    /** The request asks for the structured answer: the output tool, which the model must use. */
    asksForAnswer: (body: Body) => body.tool_choice !== undefined && (body.tools ?? []).some((tool) => tool.name === "respond"),
  },
  {
    name: "OpenAI-compatible",
    id: (key: string) => `openai:${key}`,
    answer: (value: unknown) => ({ content: [text(JSON.stringify(value))] }),
    asksForAnswer: (body: Body) => body.response_format !== undefined,
  },
] as const;

const toolNames = (body: Body) => (body.tools ?? []).map((tool) => tool.name ?? tool.function!.name);
const isSummary = (request: RecordedRequest) => JSON.stringify(request.body).includes("running summary");

async function watch(who: Caller, id: string): Promise<Watch> {
  const res = await call(`/v1/sessions/${id}/events`, { headers: { ...who.headers, Accept: "text/event-stream" } });
  expect(res.status).toBe(200);
  const watched = watchSse(res);
  await watched.untilType("snapshot");
  return watched;
}

describe.each(PROVIDERS)("structured output with the loop on the $name provider", (provider) => {
  it("does not ask a summary unit for the answer; every model step is asked for it", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const schema = { type: "object", properties: { lookups: { type: "integer" } }, required: ["lookups"], additionalProperties: false };
    const lookups = 5;
    await model.script(
      ...Array.from({ length: lookups }, (_, i) => ({ reply: { content: [toolUse(`call_${i}`, "get_time")] } })),
      { reply: provider.answer({ lookups }) },
      {
        match: { system_includes: "running summary" },
        repeat: 20,
        reply: { content: [text("the user wants the time, looked up several times")] },
      },
    );
    const session = await createSession(who, {
      input: "look up the time again and again, then say how often",
      model: provider.id(model.key),
      tools: [{ type: "builtin", name: "get_time" }],
      context: { strategy: "summary", max_input_tokens: 500 },
      output_schema: schema,
    });
    const done = await waitForStatus(who, session.id, ["done", "failed"], 20_000);
    expect(done, done.error ?? "").toMatchObject({
      status: "done",
      stop_reason: "end_turn",
      output: { lookups },
      usage: { steps: lookups + 1 },
    });

    const requests = await model.requests();
    const summaries = requests.filter(isSummary);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    for (const summary of summaries) {
      const body = summary.body as Body;
      expect([body.tool_choice, body.response_format, body.tools]).toEqual([undefined, undefined, undefined]);
    }
    const steps = requests.filter((request) => !isSummary(request));
    expect(steps).toHaveLength(lookups + 1);
    for (const step of steps) expect(provider.asksForAnswer(step.body as Body)).toBe(true);
  }, 30_000);

  it("streams no delta of the answer: it arrives whole in its message and in output; a free answer still streams", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const schema = { type: "object", properties: { summary: { type: "string" } }, required: ["summary"], additionalProperties: false };
    const value = { summary: "a long enough answer to be streamed in many small pieces" };
    const free = "a free answer, streamed in pieces as usual";
    await model.script(
      { reply: provider.answer(value), stream: { chunk_chars: 3 } },
      { reply: { content: [text(free)] }, stream: { chunk_chars: 3 } },
    );
    const session = await createSession(who, { model: provider.id(model.key), output_schema: schema });

    const structured = await watch(who, session.id);
    expect((await post(who, `/v1/sessions/${session.id}/messages`, { input: "sum it up" })).status).toBe(202);
    await structured.untilClosed();
    expect(structured.types()).not.toContain("delta");
    const answer = structured.stored().filter((f) => f.type === "message" && (f.data as { role: string }).role === "assistant");
    expect(answer.map((f) => f.data)).toEqual([expect.objectContaining({ content: [text(JSON.stringify(value))] })]);
    expect(await waitForStatus(who, session.id, ["done"])).toMatchObject({ output: value });

    // The same provider streams the text of an answer that is not structured (a watch ends with
    // its session's run, so a new idle session is watched).
    const other = await createSession(who, { model: provider.id(model.key) });
    const prose = await watch(who, other.id);
    expect((await post(who, `/v1/sessions/${other.id}/messages`, { input: "in words?" })).status).toBe(202);
    await prose.untilClosed();
    const deltas = prose.frames.filter((f) => f.type === "delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltaText(deltas)).toEqual(new Map([[0, free]]));
  }, 30_000);

  it("lets the model call MCP tools first, then takes its answer", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const key = uniqueKey("mcp");
    const base = inject("mcpUrl");
    const schema = { type: "object", properties: { sum: { type: "number" } }, required: ["sum"], additionalProperties: false };
    await model.script({ reply: { content: [toolUse("toolu_add", "docs__add", { a: 2, b: 3 })] } }, { reply: provider.answer({ sum: 5 }) });
    const session = await createSession(who, {
      input: "add 2 and 3",
      model: provider.id(model.key),
      tools: [{ type: "mcp", name: "docs", url: `${base}/mcp/${key}`, allowed_tools: ["add", "echo"] }],
      output_schema: schema,
    });
    const done = await waitForStatus(who, session.id, ["done", "failed"], 15_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done", output: { sum: 5 }, usage: { steps: 2 } });
    expect(validateJson(schema, done.output)).toEqual({ valid: true });

    const calls = ((await (await fetch(`${base}/_calls/${key}`)).json()) as { calls: { tool: string; arguments: unknown }[] }).calls;
    expect(calls).toEqual([expect.objectContaining({ tool: "add", arguments: { a: 2, b: 3 } })]);
    const requests = await model.requests();
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      const body = request.body as Body;
      expect(provider.asksForAnswer(body)).toBe(true);
      expect(toolNames(body)).toEqual(expect.arrayContaining(["docs__add", "docs__echo"]));
    }
    // Anthropic must call a tool on every step (`any`): an MCP tool, or the output tool to answer.
    if (provider.name === "Anthropic") expect((requests[0]!.body as Body).tool_choice).toEqual({ type: "any" });
    const history = await messagesOf(who, session.id);
    expect(history.map((m) => `${m.role}:${m.content.map((b) => b.type).join("+")}`)).toEqual([
      "user:text",
      "assistant:tool_use",
      "user:tool_result",
      "assistant:text",
    ]);
  }, 30_000);
});
