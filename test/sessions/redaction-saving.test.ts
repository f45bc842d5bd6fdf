/** Where redaction meets the session's saving: a tool output cut and redacted, an answer's text blocks, a user's text. */
import { describe, expect, it } from "vitest";
import {
  REDACTION_OVERLAP_CHARS,
  redactAnswer,
  redactInputText,
  redactModelText,
  redactOutputValue,
  requestedReasoning,
  savedToolOutput,
  streamsAnswerText,
} from "../../src/sessions/object/redaction";
import { cutOutput } from "../../src/sessions/object/tools/cut-output";
import { MAX_REDACTION_INPUT_CHARS } from "../../src/shared/redaction/redact";
import type { RedactionSettings } from "../../src/shared/redaction/settings";

const EVERYWHERE: RedactionSettings = { detectors: ["email", "secret"], apply_to: ["user_input", "tool_output", "model_output"] };

describe("a tool output as saved", () => {
  it("is cut as before when the setting leaves tool output alone", () => {
    const output = "alice@example.com ".repeat(10);
    expect(savedToolOutput(output, 50, null)).toBe(cutOutput(output, 50));
    expect(savedToolOutput(output, 50, { ...EVERYWHERE, apply_to: ["user_input"] })).toBe(cutOutput(output, 50));
  });

  it("is redacted before the cut, so an address the cut would halve is not kept in part", () => {
    const output = `${"x".repeat(90)} alice@example.com and more`;
    const saved = savedToolOutput(output, 100, EVERYWHERE);
    expect(saved).not.toContain("alice");
    expect(saved).not.toContain("@");
    expect(saved.length).toBeLessThanOrEqual(100);
  });

  it("says how long the whole output was when it read only part of it", () => {
    const output = "y".repeat(5_000 + REDACTION_OVERLAP_CHARS + 10);
    const saved = savedToolOutput(output, 5_000, EVERYWHERE);
    expect(saved.length).toBe(5_000);
    expect(saved).toMatch(new RegExp(`\\[output cut: ${output.length} characters, limit 5000\\]$`));
  });

  it("is not cut when redaction made it shorter and it was read whole", () => {
    const output = `key AKIAIOSFODNN7EXAMPLE ${"z".repeat(60)}`;
    expect(savedToolOutput(output, output.length, EVERYWHERE)).toBe(`key [redacted:secret] ${"z".repeat(60)}`);
  });

  it("is cut at the bound of one redaction pass at the latest", () => {
    const output = "w".repeat(MAX_REDACTION_INPUT_CHARS * 2);
    expect(savedToolOutput(output, 10_000_000, EVERYWHERE).length).toBeLessThanOrEqual(MAX_REDACTION_INPUT_CHARS);
  });
});

describe("an answer and a user's text as saved", () => {
  it("redacts text, tool calls' arguments and reasoning; a changed signed block loses its signature, encrypted reasoning is kept", () => {
    const content = [
      { type: "thinking" as const, thinking: "mail alice@example.com", signature: "sig" },
      { type: "thinking" as const, thinking: "nothing personal", signature: "sig2" },
      { type: "thinking" as const, thinking: "unsigned bob@example.com" },
      { type: "redacted_thinking" as const, data: "opaque" },
      { type: "text" as const, text: "Mail alice@example.com" },
      {
        type: "tool_use" as const,
        id: "toolu_1",
        name: "send",
        input: { to: ["alice@example.com"], n: 2, nested: { key: "AKIAIOSFODNN7EXAMPLE" } },
      },
    ];
    expect(redactAnswer(content, EVERYWHERE)).toEqual([
      { type: "thinking", thinking: "mail [redacted:email]" },
      content[1],
      { type: "thinking", thinking: "unsigned [redacted:email]" },
      content[3],
      { type: "text", text: "Mail [redacted:email]" },
      { type: "tool_use", id: "toolu_1", name: "send", input: { to: ["[redacted:email]"], n: 2, nested: { key: "[redacted:secret]" } } },
    ]);
    expect(redactAnswer(content, { ...EVERYWHERE, apply_to: ["tool_output"] })).toBe(content);
  });

  it("drops reasoning_details whose readable text holds what is redacted, even when the thinking text is clean", () => {
    const details = [
      { type: "reasoning.summary", summary: "Write to alice@example.com", index: 0 },
      { type: "reasoning.encrypted", data: "gAAA", index: 1 },
    ];
    const clean = [{ type: "reasoning.text", text: "Nothing personal", index: 0 }];
    const content = [
      { type: "thinking" as const, thinking: "I will write the mail.", reasoning_details: details },
      { type: "thinking" as const, thinking: "Nothing personal", reasoning_details: clean },
    ];
    expect(redactAnswer(content, EVERYWHERE)).toEqual([{ type: "thinking", thinking: "I will write the mail." }, content[1]]);
  });

  it("redacts a structured answer's strings and a summary's text only under model_output", () => {
    const value = { email: "alice@example.com", tags: ["x", "bob@example.com"], count: 3, ok: true, none: null };
    expect(redactOutputValue(value, EVERYWHERE)).toEqual({
      email: "[redacted:email]",
      tags: ["x", "[redacted:email]"],
      count: 3,
      ok: true,
      none: null,
    });
    expect(redactOutputValue(value, { ...EVERYWHERE, apply_to: ["user_input"] })).toBe(value);
    expect(redactModelText("Summary: alice@example.com asked", EVERYWHERE)).toBe("Summary: [redacted:email] asked");
    expect(redactModelText("Summary: alice@example.com asked", null)).toBe("Summary: alice@example.com asked");
  });

  it("does not ask a provider that signs its reasoning for any while answers are redacted", () => {
    const reasoning = { effort: "high" };
    expect(requestedReasoning(reasoning, true, EVERYWHERE)).toBeUndefined();
    expect(requestedReasoning(reasoning, false, EVERYWHERE)).toBe(reasoning);
    expect(requestedReasoning(reasoning, true, { ...EVERYWHERE, apply_to: ["tool_output"] })).toBe(reasoning);
  });

  it("redacts a user's text only under user_input", () => {
    expect(redactInputText({ type: "text", text: "I am alice@example.com" }, EVERYWHERE).text).toBe("I am [redacted:email]");
    expect(redactInputText({ type: "text", text: "I am alice@example.com" }, null).text).toBe("I am alice@example.com");
  });

  it("streams an answer's text to watchers only when answers are not redacted", () => {
    expect(streamsAnswerText(EVERYWHERE)).toBe(false);
    expect(streamsAnswerText({ ...EVERYWHERE, apply_to: ["user_input"] })).toBe(true);
    expect(streamsAnswerText(undefined)).toBe(true);
  });
});

describe("a token longer than the overlap, across the cut", () => {
  it("is redacted from its start, not kept in part", () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.${"p".repeat(REDACTION_OVERLAP_CHARS * 3)}.signature`;
    const saved = savedToolOutput(`${"x".repeat(90)} ${jwt}`, 200, EVERYWHERE);
    expect(saved).not.toContain("eyJ");
    expect(saved).toContain("[redacted:secret]");
  });
});
