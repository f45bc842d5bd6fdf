/**
 * The development model behind `npm start`: it calls every tool of the session once, with
 * inputs the platform's own validator accepts, then answers from the results; scripted steps
 * still come first, so the tests' protocol is unchanged.
 */
import { Validator } from "@cfworker/json-schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockServer, startMockServer } from "../support/node/mock-server";
import { sampleInput, toolUsingFallback } from "../support/node/tool-using-model";

type Block = { type: string; id?: string; name?: string; input?: unknown; text?: string };
type Turn = { role: "user" | "assistant"; content: string | Block[] };

const TOOLS = [
  {
    name: "get_time",
    description: "time",
    input_schema: { type: "object", properties: { timezone: { type: "string" } }, additionalProperties: false },
  },
  {
    name: "lookup_order",
    description: "orders",
    input_schema: {
      type: "object",
      properties: { order_id: { type: "string", pattern: "^ord_[0-9]{6}$" }, count: { type: "integer", minimum: 1, maximum: 5 } },
      required: ["order_id", "count"],
      additionalProperties: false,
    },
  },
  {
    name: "confirm_with_customer",
    description: "asks",
    input_schema: {
      type: "object",
      properties: {
        question: { type: "string", minLength: 5, maxLength: 40 },
        channel: { enum: ["email", "sms"] },
        when: { type: "string", format: "date-time" },
        items: { type: "array", items: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] }, minItems: 1 },
      },
      required: ["question", "channel", "when", "items"],
    },
  },
];

describe("the tool-using development model", () => {
  let server: MockServer;

  beforeAll(async () => {
    server = await startMockServer({ modelFallback: toolUsingFallback });
  });
  afterAll(async () => {
    await server.close();
  });

  async function ask(model: string, messages: Turn[], tools = TOOLS): Promise<Block[]> {
    const res = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model, max_tokens: 100, messages, tools }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { content: Block[] }).content;
  }

  it("calls each tool once, in order, with valid inputs, then answers from the results", async () => {
    const messages: Turn[] = [{ role: "user", content: "Where is my order?" }];
    const calledNames: string[] = [];
    for (let step = 0; step < TOOLS.length; step++) {
      const content = await ask("dev-model", messages);
      const call = content.find((block) => block.type === "tool_use")!;
      calledNames.push(call.name!);
      const schema = TOOLS.find((tool) => tool.name === call.name)!.input_schema;
      const verdict = new Validator(schema as object, "2020-12").validate(call.input);
      expect(verdict.errors, `${call.name}: ${JSON.stringify(call.input)}`).toEqual([]);
      messages.push(
        { role: "assistant", content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call.id!, content: `result of ${call.name}` } as Block] },
      );
    }
    expect(calledNames).toEqual(["get_time", "lookup_order", "confirm_with_customer"]);

    const [answer] = await ask("dev-model", messages);
    expect(answer?.type).toBe("text");
    for (const tool of TOOLS) expect(answer?.text).toContain(`- ${tool.name}: result of ${tool.name}`);
  });

  it("starts over with a new prompt in the same conversation", async () => {
    const first = await ask("dev-model", [{ role: "user", content: "hi" }], TOOLS.slice(0, 1));
    const call = first.find((block) => block.type === "tool_use")!;
    const history: Turn[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: first },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id!, content: "noon" } as Block] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
      { role: "user", content: "again" },
    ];
    const again = await ask("dev-model", history, TOOLS.slice(0, 1));
    const repeat = again.find((block) => block.type === "tool_use")!;
    expect(repeat.name).toBe("get_time");
    expect(repeat.id).not.toBe(call.id);
  });

  it("answers in text when the session has no tools", async () => {
    const [answer] = await ask("dev-model", [{ role: "user", content: "hello" }], []);
    expect(answer?.text).toContain('You said: "hello"');
  });

  it("still plays scripted steps first", async () => {
    await fetch(`${server.url}/_mock/model/scripted-dev`, {
      method: "POST",
      body: JSON.stringify({ steps: [{ reply: { content: [{ type: "text", text: "scripted" }] } }] }),
    });
    expect(await ask("scripted-dev", [{ role: "user", content: "x" }])).toEqual([{ type: "text", text: "scripted" }]);
    expect((await ask("scripted-dev", [{ role: "user", content: "x" }]))[1]?.type).toBe("tool_use");
  });

  it("generates the same input for the same tool every time", () => {
    expect(sampleInput(TOOLS[2]!)).toEqual(sampleInput(TOOLS[2]!));
  });
});

describe("the tests' mock server", () => {
  it("still says ok when nothing is scripted and no fallback is given", async () => {
    const plain = await startMockServer();
    try {
      const res = await fetch(`${plain.url}/v1/messages`, {
        method: "POST",
        body: JSON.stringify({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "x" }], tools: TOOLS }),
      });
      expect(((await res.json()) as { content: Block[] }).content).toEqual([{ type: "text", text: "ok" }]);
    } finally {
      await plain.close();
    }
  });
});
