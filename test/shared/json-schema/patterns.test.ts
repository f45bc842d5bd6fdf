import { describe, expect, it } from "vitest";
import { compilePattern, estimatePatternSize, MAX_PATTERN_CHARS, unsupportedConstruct } from "../../../src/shared/json-schema/patterns";

describe("compilePattern", () => {
  it.each([
    ["^(a+)+$", "aaaa", true],
    ["^(a+)+$", "aaa!", false],
    ["^\\d{3}-\\d{4}$", "555-1234", true],
    ["abc", "xxabcxx", true], // unanchored, as JSON Schema says
    ["^\\u0041\\u{1F600}$", "A😀", true],
    ["^(?<year>\\d{4})-(?:0[1-9]|1[0-2])$", "2026-12", true],
    ["^[^]$", "\n", true],
    ["a/b", "a/b", true],
    ["^\\p{Lu}", "Élan", true],
    ["^[a-z]+$", "ABC", false],
    ["", "anything", true],
  ])("runs %s on %j as %s", (source, subject, expected) => {
    const result = compilePattern(source);
    if (!result.ok) throw new Error(result.problem);
    expect(result.pattern.test(subject)).toBe(expected);
  });

  it.each([
    ["(a)\\1", "Backreferences"],
    ["(?<n>a)\\k<n>", "Backreferences"],
    ["(?=a)b", "Lookahead and lookbehind"],
    ["(?!a)b", "Lookahead and lookbehind"],
    ["(?<=a)b", "Lookahead and lookbehind"],
    ["(?<!a)b", "Lookahead and lookbehind"],
    ["(", "Not a valid regular expression"],
    ["\\q", "Not a valid regular expression"], // an identity escape the u flag refuses
    ["\\p{L}{1000}\\p{L}{1000}\\p{L}{1000}", "Too large"],
    ["(?:a{1,30}){1,30}", "Too large"],
  ])("refuses %s", (source, reason) => {
    const result = compilePattern(source);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toContain(reason);
  });

  it(`refuses a pattern longer than ${MAX_PATTERN_CHARS} characters`, () => {
    expect(compilePattern("x".repeat(MAX_PATTERN_CHARS + 1))).toEqual({
      ok: false,
      problem: `Must be at most ${MAX_PATTERN_CHARS} characters.`,
    });
  });

  it("does not take an escaped bracket or a class for lookaround or a backreference", () => {
    expect(unsupportedConstruct("\\(?=a")).toBeNull();
    expect(unsupportedConstruct("[(?=]")).toBeNull();
    expect(unsupportedConstruct("[\\1]")).toBeNull();
    expect(unsupportedConstruct("\\\\1")).toBeNull();
  });
});

describe("estimatePatternSize", () => {
  it.each([
    ["abc", 3],
    ["a{10}", 10],
    ["(?:ab){10}", 10 * 5], // the group's atoms ("?:" counted, on the safe side) and its closing
    ["[a-z]{1,1000}", 1999],
    ["\\p{L}{1000}", 1000],
    ["(a{10}){10}", 100 + 10],
    ["a|b|c", 5],
    ["a{99999999999}", 99999999999],
    ["(?:(?:(?:a{99999}){99999}){99999}){99999}", Number.MAX_SAFE_INTEGER / 4],
  ])("estimates %s as at least its expansion (%d)", (source, size) => {
    expect(estimatePatternSize(source)).toBeGreaterThanOrEqual(size * 0.9);
  });

  it("grows with nested counted repetitions", () => {
    expect(estimatePatternSize("((a{10}){10}){10}")).toBeGreaterThan(1000);
  });
});
