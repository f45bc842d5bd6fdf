/** The pure parts of structured output: how the answer is asked for, and how it is judged. */
import { describe, expect, it } from "vitest";
import { toWire } from "../../../src/sessions/object/model/anthropic";
import { toChatRequest } from "../../../src/sessions/object/model/openai-wire";
import type { ModelRequest } from "../../../src/sessions/object/model/provider";
import { correctionText, judgeAnswer } from "../../../src/sessions/object/output/judge";
import { fitsStrictMode, outputRequest } from "../../../src/sessions/object/output/output-tool";

const SCHEMA = { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false };
const text = (t: string) => ({ type: "text" as const, text: t });
const call = (input: unknown, name = "respond") => ({ type: "tool_use" as const, id: "toolu_1", name, input });

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "m", system: null, messages: [{ role: "user", content: [text("hi")] }], tools: [], maxTokens: 10, ...extra };
}

describe("judging an answer", () => {
  it("takes the output tool's input, and keeps it as JSON text", () => {
    expect(judgeAnswer([call({ n: 2 })], "tool_use", SCHEMA, "respond")).toEqual({
      kind: "valid",
      output: { n: 2 },
      content: [text('{"n":2}')],
    });
  });

  it("takes an answer's text as JSON, also inside one code fence", () => {
    expect(judgeAnswer([text('{"n": 3}')], "end_turn", SCHEMA, "respond")).toMatchObject({ kind: "valid", output: { n: 3 } });
    expect(judgeAnswer([text('```json\n{"n": 4}\n```')], "end_turn", SCHEMA, "respond")).toMatchObject({ kind: "valid", output: { n: 4 } });
  });

  it.each([
    ["not valid for the schema", [call({ n: "two" })], "end_turn", /does not match output_schema: #?\/n: /],
    ["not JSON", [text("n is 2")], "end_turn", /^the answer is not JSON/],
    ["empty", [], "end_turn", /^the answer was empty$/],
    ["cut off", [text('{"n": ')], "max_tokens", /^the answer was cut off at its token cap; the answer is not JSON/],
  ] as const)("says why an answer %s is refused", (_name, content, stop, error) => {
    const verdict = judgeAnswer([...content], stop, SCHEMA, "respond");
    expect(verdict.kind).toBe("invalid");
    expect(verdict.kind === "invalid" && verdict.error).toMatch(error);
  });

  it("tells the model what was wrong", () => {
    expect(correctionText("the answer was empty")).toMatch(/^\[Output check\] .*the answer was empty.*again/);
  });
});

describe("asking for a structured answer", () => {
  it("names the output tool apart from the session's tools", () => {
    expect(outputRequest(SCHEMA, ["get_time"])?.tool.name).toBe("respond");
    expect(outputRequest(SCHEMA, ["respond", "respond_2"])?.tool.name).toBe("respond_3");
    expect(outputRequest(null, [])).toBeNull();
  });

  it("forces Anthropic's output tool: itself without other tools, any tool with them", () => {
    const output = outputRequest(SCHEMA, [])!;
    expect(toWire(request({ output }))).toMatchObject({
      tools: [{ name: "respond", input_schema: SCHEMA }],
      tool_choice: { type: "tool", name: "respond" },
    });
    const tools = [{ name: "lookup", description: "d", input_schema: { type: "object" } }];
    const wire = toWire(request({ output, tools }));
    expect(wire.tool_choice).toEqual({ type: "any" });
    expect(wire.tools!.map((tool) => tool.name)).toEqual(["lookup", "respond"]);
    expect(toWire(request()).tool_choice).toBeUndefined();
  });

  it("asks a Chat Completions server for json_schema, strict only where the schema allows", () => {
    const strict = toChatRequest(request({ output: outputRequest(SCHEMA, [])! }), true);
    expect(strict.response_format).toEqual({ type: "json_schema", json_schema: { name: "output", schema: SCHEMA, strict: true } });
    const open = { type: "object", properties: { n: { type: "integer" } } };
    expect(toChatRequest(request({ output: outputRequest(open, [])! }), true).response_format?.json_schema.strict).toBe(false);
  });

  it.each([
    [SCHEMA, true],
    [{ ...SCHEMA, required: [] }, false],
    [{ ...SCHEMA, additionalProperties: true }, false],
    [{ ...SCHEMA, properties: { n: { type: "string", minLength: 2 } } }, false],
    [
      {
        type: "object",
        properties: {
          items: {
            type: "array",
            items: { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false },
          },
        },
        required: ["items"],
        additionalProperties: false,
      },
      true,
    ],
    [
      {
        type: "object",
        properties: { items: { type: "array", items: { type: "object", properties: { a: { type: "string" } } } } },
        required: ["items"],
        additionalProperties: false,
      },
      false,
    ],
  ])("judges strict mode of %j: %s", (schema, expected) => {
    expect(fitsStrictMode(schema)).toBe(expected);
  });
});
