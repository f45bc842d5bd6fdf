/**
 * The at-most-once rule every path asks (the tool step's mark, a restart, a pause, the tries
 * within a webhook or MCP call), by table: a call that must not happen twice is marked durably
 * before its effect, never repeated after a cut, and tried once; a tool the session no longer
 * has counts as one.
 */
import { describe, expect, it } from "vitest";
import { markAtMostOnce } from "../../../src/sessions/object/tools/at-most-once";
import type { RetryPolicy } from "../../../src/shared/retry";

const THREE: RetryPolicy = { maxAttempts: 3, delayMs: () => 1 };

describe("markAtMostOnce", () => {
  it.each([
    { tool: "at-most-once", atMostOnce: true, instant: false, markFirst: true, durableMark: true, repeatAfterCut: false, tries: 1 },
    { tool: "at-most-once, instant", atMostOnce: true, instant: true, markFirst: true, durableMark: true, repeatAfterCut: false, tries: 1 },
    { tool: "repeatable", atMostOnce: false, instant: false, markFirst: true, durableMark: false, repeatAfterCut: true, tries: 3 },
    { tool: "repeatable, instant", atMostOnce: false, instant: true, markFirst: false, durableMark: false, repeatAfterCut: true, tries: 3 },
    {
      tool: "gone from the session",
      atMostOnce: undefined,
      instant: false,
      markFirst: true,
      durableMark: true,
      repeatAfterCut: false,
      tries: 1,
    },
  ])("$tool", ({ atMostOnce, instant, markFirst, durableMark, repeatAfterCut, tries }) => {
    const rule = markAtMostOnce(atMostOnce, instant);
    expect({ markFirst: rule.markFirst, durableMark: rule.durableMark, repeatAfterCut: rule.repeatAfterCut }).toEqual({
      markFirst,
      durableMark,
      repeatAfterCut,
    });
    expect(rule.tries(THREE).maxAttempts).toBe(tries);
  });
});
