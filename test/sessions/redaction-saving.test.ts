/** Where redaction meets the session's saving: a tool output cut and redacted, an answer's text blocks, a user's text. */
import { describe, expect, it } from "vitest";
import {
  REDACTION_OVERLAP_CHARS,
  redactAnswer,
  redactInputText,
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
  it("redacts text blocks only: tool calls' arguments and reasoning are kept as written", () => {
    const content = [
      { type: "thinking" as const, thinking: "alice@example.com", signature: "sig" },
      { type: "text" as const, text: "Mail alice@example.com" },
      { type: "tool_use" as const, id: "toolu_1", name: "send", input: { to: "alice@example.com" } },
    ];
    expect(redactAnswer(content, EVERYWHERE)).toEqual([content[0], { type: "text", text: "Mail [redacted:email]" }, content[2]]);
    expect(redactAnswer(content, { ...EVERYWHERE, apply_to: ["tool_output"] })).toBe(content);
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
