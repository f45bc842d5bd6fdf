import { describe, expect, it } from "vitest";
import { assemble } from "../../../src/sessions/object/context/assemble";
import { CONTEXT_MARGIN_TOKENS, foldCap, inputBudget, messageBudget, summaryMaxTokens } from "../../../src/sessions/object/context/budget";
import {
  calibratedRatio,
  estimateMessageTokens,
  MAX_TOKEN_RATIO,
  MESSAGE_OVERHEAD_TOKENS,
  messageKind,
  utf8Bytes,
} from "../../../src/sessions/object/context/estimate";
import { DEFAULT_LAST_MESSAGES, resolveContext } from "../../../src/session-config/context-settings";
import { SUMMARY_HEADING, summaryRequest, summaryText, transcript } from "../../../src/sessions/object/context/summary-prompt";
import { requestProblems } from "../../support/request-checks";
import type { ContentBlock, Message } from "../../../src/session-config/types";

const t = (text: string): ContentBlock => ({ type: "text", text });
const msg = (seq: number, role: Message["role"], content: ContentBlock[]): Message => ({
  seq,
  role,
  content,
  created_at: "2030-01-01T00:00:00.000Z",
});

describe("the token estimate", () => {
  it.each([
    ["ascii", "hello", 5],
    ["two-byte", "héllo", 6],
    ["three-byte", "日本", 6],
    ["a surrogate pair", "a😀", 5],
  ])("counts UTF-8 bytes of %s text", (_name, text, bytes) => expect(utf8Bytes(text)).toBe(bytes));

  it("is a third of the content's JSON bytes plus the message's overhead", () => {
    const content = [t("x".repeat(300))];
    expect(estimateMessageTokens(content)).toBe(Math.ceil(utf8Bytes(JSON.stringify(content)) / 3) + MESSAGE_OVERHEAD_TOKENS);
  });

  it.each([
    ["user", [t("hi")], "input"],
    ["user", [{ type: "tool_result", tool_use_id: "a", content: "x" }], "tool_result"],
    ["assistant", [t("hi")], "answer"],
    ["assistant", [t("calling"), { type: "tool_use", id: "a", name: "n", input: {} }], "tool_use"],
  ] as const)("calls a %s message of %j %s", (role, content, kind) =>
    expect(messageKind(role, content as unknown as ContentBlock[])).toBe(kind),
  );

  it.each([
    ["a provider that counts less than the estimate", 80, 100, 1],
    ["one that counts more", 150, 100, 1.5],
    ["a report out of all proportion", 10_000, 100, MAX_TOKEN_RATIO],
    ["no report", 0, 100, 1],
  ])("calibrates against %s", (_name, reported, estimated, ratio) => expect(calibratedRatio(reported, estimated)).toBe(ratio));
});

describe("context settings", () => {
  it.each([
    [null, { strategy: "auto", maxInputTokens: null, lastMessages: null }],
    [{ note: "kept by an earlier caller" }, { strategy: "auto", maxInputTokens: null, lastMessages: null }],
    [
      { strategy: "summary", max_input_tokens: 5000 },
      { strategy: "summary", maxInputTokens: 5000, lastMessages: null },
    ],
    [{ strategy: "last_messages" }, { strategy: "last_messages", maxInputTokens: null, lastMessages: DEFAULT_LAST_MESSAGES }],
    [
      { strategy: "last_messages", last_messages: 4 },
      { strategy: "last_messages", maxInputTokens: null, lastMessages: 4 },
    ],
  ])("resolves %j", (raw, expected) => expect(resolveContext(raw)).toEqual(expected));
});

describe("budgets", () => {
  it("takes the session's budget within the model's room for the answer", () => {
    expect(inputBudget({ maxInputTokens: null, contextTokens: 200_000, maxTokens: 4096 })).toBe(200_000 - 4096 - CONTEXT_MARGIN_TOKENS);
    expect(inputBudget({ maxInputTokens: 8_000, contextTokens: 200_000, maxTokens: 4096 })).toBe(8_000);
    expect(inputBudget({ maxInputTokens: 8_000, contextTokens: 10_000, maxTokens: 4096 })).toBe(10_000 - 4096 - CONTEXT_MARGIN_TOKENS);
  });

  it("leaves the messages what the calibration, the system prompt and the tools do not take", () => {
    expect(messageBudget(10_000, 1, 1_000)).toBe(9_000);
    expect(messageBudget(10_000, 2, 1_000)).toBe(4_000);
    expect(messageBudget(1_000, 1, 5_000)).toBe(0);
  });

  it("sizes summaries by the budget", () => {
    expect(summaryMaxTokens(100_000, 4096)).toBe(2048);
    expect(summaryMaxTokens(2_000, 4096)).toBe(500);
    expect(summaryMaxTokens(100, 4096)).toBe(128);
    expect(summaryMaxTokens(100, 50)).toBe(50);
    expect(foldCap(10_000, 500)).toBeLessThan(10_000 - 500);
  });
});

describe("assembling a call", () => {
  const task = msg(1, "user", [t("the task")]);
  const runTask = msg(20, "user", [t("the run's task")]);
  const window = [
    msg(31, "assistant", [{ type: "tool_use", id: "c", name: "n", input: {} }]),
    msg(32, "user", [{ type: "tool_result", tool_use_id: "c", content: "r" }]),
  ];

  it("sends the task, the summary where its messages stood, the run's task, then the window, in that order", () => {
    const messages = assemble({ task, runTask, summary: { first_seq: 2, last_seq: 30, content: "so far" }, window });
    expect(
      messages.map((m) => [m.role, m.content[0]!.type === "text" ? m.content[0]!.text : m.content[0]!.type, m.cache ?? false]),
    ).toEqual([
      ["user", "the task", true],
      ["user", `${SUMMARY_HEADING}\nso far`, true],
      ["user", "the run's task", false],
      ["assistant", "tool_use", false],
      ["user", "tool_result", false],
    ]);
  });

  it("sends a pinned message once when the window holds it", () => {
    const messages = assemble({ task, runTask: null, summary: null, window: [task, msg(2, "assistant", [t("hi")])] });
    expect(messages).toHaveLength(2);
  });

  it("makes a valid request once turns are joined", () => {
    const turns: { role: string; content: ContentBlock[] }[] = [];
    for (const m of assemble({ task, runTask, summary: { first_seq: 2, last_seq: 30, content: "so far" }, window })) {
      const last = turns.at(-1);
      if (last?.role === m.role) last.content.push(...m.content);
      else turns.push({ role: m.role, content: [...m.content] });
    }
    expect(requestProblems(turns)).toEqual([]);
  });
});

describe("the summary call", () => {
  it("extends the previous summary with a transcript of the folded messages, without tools", () => {
    const folded = [
      msg(2, "assistant", [t("checking"), { type: "tool_use", id: "c1", name: "lookup", input: { q: 1 } }]),
      msg(3, "user", [{ type: "tool_result", tool_use_id: "c1", content: "found", is_error: true }]),
    ];
    const request = summaryRequest("m", "the user wants a report", folded, 1000);
    expect(request.tools).toEqual([]);
    expect(request.maxTokens).toBe(1000);
    const text = (request.messages[0]!.content[0] as { text: string }).text;
    expect(text).toContain("the user wants a report");
    expect(text).toContain(transcript(folded));
    expect(transcript(folded)).toBe('[assistant] checking\n[assistant called lookup (c1)] {"q":1}\n[error from c1] found');
  });

  it("reads the answer's text, and none from an empty answer", () => {
    expect(summaryText([t("  a "), t("b")])).toBe("a \nb");
    expect(summaryText([t(" ")])).toBeNull();
  });
});
