/** Task ids and what an A2A message asks, read without the platform: pure. */
import { Role, type Message, type Part } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { readA2aMessage } from "../../src/a2a/message";
import { parseTaskId, taskIdOf } from "../../src/a2a/tasks";

const part = (content: Part["content"]): Part => ({ content, metadata: undefined, filename: "", mediaType: "" });
const message = (parts: Part[], role = Role.ROLE_USER): Message => ({
  messageId: "m",
  contextId: "",
  taskId: "",
  role,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

describe("task ids", () => {
  it("name a run of a context and read back, whatever the context id holds", () => {
    for (const contextId of ["c1", "a.b.c", "7.x", "ünïcode / spaces"])
      expect(parseTaskId(taskIdOf(contextId, 12))).toEqual({ contextId, inputSeq: 12 });
    for (const id of ["", "12", "12.", ".c", "0.c", "-1.c", "x.c", "01.c", `1.${"c".repeat(129)}`]) expect(parseTaskId(id), id).toBeNull();
  });
});

describe("readA2aMessage", () => {
  it("reads text parts as input, and data parts as answers", () => {
    expect(readA2aMessage(message([part({ $case: "text", value: "a" }), part({ $case: "text", value: "b" })]))).toEqual({
      kind: "input",
      text: "a\nb",
    });
    expect(
      readA2aMessage(
        message([
          part({ $case: "data", value: { tool_call_id: "t1", approved: false, reason: "no" } }),
          part({ $case: "data", value: { tool_call_id: "t2", output: { ok: true } } }),
        ]),
      ),
    ).toEqual({
      kind: "answers",
      approvals: [{ callId: "t1", approved: false, reason: "no" }],
      outputs: [{ callId: "t2", output: '{"ok":true}', isError: false }],
    });
  });

  it("refuses what is neither, or both", () => {
    const invalid = (m: Message | undefined) => readA2aMessage(m).kind;
    expect(invalid(undefined)).toBe("invalid");
    expect(invalid(message([part({ $case: "text", value: "hi" })], Role.ROLE_AGENT))).toBe("invalid");
    expect(invalid(message([]))).toBe("invalid");
    expect(invalid(message([part({ $case: "text", value: "  " })]))).toBe("invalid");
    expect(invalid(message([part({ $case: "url", value: "https://example.com/a.png" })]))).toBe("invalid");
    expect(invalid(message([part({ $case: "data", value: { approved: true } })]))).toBe("invalid");
    expect(invalid(message([part({ $case: "data", value: { tool_call_id: "t", approved: "yes" } })]))).toBe("invalid");
    expect(invalid(message([part({ $case: "data", value: { tool_call_id: "t" } })]))).toBe("invalid");
    expect(
      invalid(message([part({ $case: "text", value: "hi" }), part({ $case: "data", value: { tool_call_id: "t", approved: true } })])),
    ).toBe("invalid");
  });
});
