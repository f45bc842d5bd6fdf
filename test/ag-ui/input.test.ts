/** What a `RunAgentInput` asks: a user message's text, or answers (resume entries, trailing tool messages), and its tools as client tools. */
import { describe, expect, it } from "vitest";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { readRunInput as read } from "../../src/ag-ui/input";
import { MAX_DENY_REASON_CHARS } from "../../src/limits";

const readRunInput = (body: unknown) => read(RunAgentInputSchema, body);

const base = { threadId: "t", runId: "r" };
const user = {
  id: "u",
  role: "user",
  content: [
    { type: "text", text: "hello" },
    { type: "text", text: "there" },
  ],
};
const call = { id: "a", role: "assistant", toolCalls: [{ id: "c1", type: "function", function: { name: "pick", arguments: "{}" } }] };

describe("readRunInput", () => {
  it("reads the newest user message's text parts, and declared tools as client tools", () => {
    const read = readRunInput({ ...base, messages: [user], tools: [{ name: "pick", description: "", parameters: undefined }] });
    expect(read).toMatchObject({
      ok: true,
      ask: { kind: "input", text: "hello\nthere" },
      tools: [{ type: "client", name: "pick", description: "pick", input_schema: { type: "object", properties: {} } }],
    });
  });

  it("reads trailing tool messages as outputs (an error as a failed output) and resume entries as decisions", () => {
    const read = readRunInput({
      ...base,
      messages: [
        user,
        call,
        { id: "t1", role: "tool", toolCallId: "c1", content: "blue" },
        { id: "t2", role: "tool", toolCallId: "c2", content: "", error: "no screen" },
      ],
      resume: [
        { interruptId: "x", status: "cancelled" },
        { interruptId: "y", status: "resolved", payload: true },
        { interruptId: "z", status: "resolved", payload: { approved: false, reason: "not now" } },
      ],
    });
    expect(read).toMatchObject({
      ok: true,
      ask: {
        kind: "answers",
        outputs: [
          { callId: "c1", output: "blue", isError: false },
          { callId: "c2", output: "no screen", isError: true },
        ],
        approvals: [
          { callId: "x", approved: false, reason: null },
          { callId: "y", approved: true, reason: null },
          { callId: "z", approved: false, reason: "not now" },
        ],
      },
    });
  });

  it("refuses a deny reason longer than the one bound every protocol keeps", () => {
    const long = { interruptId: "z", status: "resolved", payload: { approved: false, reason: "n".repeat(MAX_DENY_REASON_CHARS + 1) } };
    const read = readRunInput({ ...base, messages: [user], resume: [long] });
    expect(read).toMatchObject({ ok: false });
    expect(JSON.stringify(read)).toContain("body.resume.0.payload.reason");
    const fits = { ...long, payload: { approved: false, reason: "n".repeat(MAX_DENY_REASON_CHARS) } };
    expect(readRunInput({ ...base, messages: [user], resume: [fits] })).toMatchObject({ ok: true });
  });

  it("refuses what is not a RunAgentInput with the schema's own paths", () => {
    const read = readRunInput({ threadId: 1, messages: "hi" });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.issues.map((issue) => issue.path.join("."))).toEqual(expect.arrayContaining(["threadId", "runId", "messages"]));
  });
});
