/**
 * The invariants a finished session's history must keep whatever crashed on the way: in
 * order, nothing twice, and every tool_use answered by exactly one tool_result in the very
 * next message. Returns readable problems rather than throwing, so a test shows all of them.
 */
import type { ContentBlock, Message, ToolCall } from "../../../src/session-config/types";

type ToolUse = Extract<ContentBlock, { type: "tool_use" }>;
type ToolResult = Extract<ContentBlock, { type: "tool_result" }>;

const toolUses = (m: Message): ToolUse[] => m.content.filter((b): b is ToolUse => b.type === "tool_use");
const toolResults = (m: Message): ToolResult[] => m.content.filter((b): b is ToolResult => b.type === "tool_result");

export function historyProblems(messages: Message[], calls: ToolCall[]): string[] {
  const problems: string[] = [];
  const seenContent = new Set<string>();
  const useIds = new Map<string, number>();
  const resultIds = new Map<string, number>();

  messages.forEach((message, i) => {
    const previous = messages[i - 1];
    if (previous && message.seq <= previous.seq) problems.push(`seq ${message.seq} does not follow ${previous.seq}`);
    if (i === 0 && message.role !== "user") problems.push("the history does not start with a user message");
    // Two model answers in a row means a step was saved twice.
    if (previous && previous.role === "assistant" && message.role === "assistant") {
      problems.push(`assistant messages ${previous.seq} and ${message.seq} follow each other`);
    }
    if (message.role === "assistant") {
      const key = JSON.stringify(message.content);
      if (seenContent.has(key)) problems.push(`assistant message ${message.seq} repeats an earlier one`);
      seenContent.add(key);
    }
    for (const use of toolUses(message)) useIds.set(use.id, (useIds.get(use.id) ?? 0) + 1);
    for (const result of toolResults(message)) resultIds.set(result.tool_use_id, (resultIds.get(result.tool_use_id) ?? 0) + 1);

    const uses = toolUses(message);
    if (uses.length > 0) {
      const next = messages[i + 1];
      const expected = uses.map((u) => u.id).join(",");
      const answered = next
        ? toolResults(next)
            .map((r) => r.tool_use_id)
            .join(",")
        : "(no next message)";
      if (!next || next.role !== "user" || answered !== expected) {
        problems.push(`tool_use [${expected}] of message ${message.seq} is answered by [${answered}]`);
      }
    }
  });

  for (const [id, count] of useIds) {
    if (count !== 1) problems.push(`tool_use ${id} appears ${count} times`);
    const results = resultIds.get(id) ?? 0;
    if (results !== 1) problems.push(`tool_use ${id} has ${results} tool_results`);
  }
  for (const id of resultIds.keys()) if (!useIds.has(id)) problems.push(`tool_result ${id} answers no tool_use`);

  const resultById = new Map(messages.flatMap(toolResults).map((r) => [r.tool_use_id, r]));
  for (const call of calls) {
    if (!useIds.has(call.id)) problems.push(`tool call ${call.id} has no tool_use`);
    if (call.status !== "done" && call.status !== "error") problems.push(`tool call ${call.id} is still ${call.status}`);
    const result = resultById.get(call.id);
    if (result && result.content !== call.output) problems.push(`tool call ${call.id}: output differs from its tool_result`);
  }
  if (calls.length !== useIds.size) problems.push(`${calls.length} tool calls for ${useIds.size} tool_use blocks`);
  return problems;
}

export function textOf(message: Message | undefined): string {
  return (message?.content ?? []).flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
}

/** The history as the model is sent it: turns of the same role joined, as providers require. */
export function asSentToModel(messages: Message[]): { role: string; content: ContentBlock[] }[] {
  const turns: { role: string; content: ContentBlock[] }[] = [];
  for (const { role, content } of messages) {
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.content = [...last.content, ...content];
    else turns.push({ role, content: [...content] });
  }
  return turns;
}

/** A request's turns without the prompt-cache marks the provider adds, to compare with the stored history. */
export function withoutCacheMarks(turns: unknown[]): unknown[] {
  return JSON.parse(JSON.stringify(turns, (key, value: unknown) => (key === "cache_control" ? undefined : value))) as unknown[];
}
