/**
 * What every model request must be, checked on the request as it was sent (either dialect's
 * turns, after joining): it starts with a user turn, roles alternate, every tool_use is
 * answered in the very next turn, and no tool_result answers a call the request does not hold.
 * Pure, so the workers tests and the end-to-end suite share it.
 */

export interface Block {
  type: string;
  id?: string;
  tool_use_id?: string;
  text?: string;
}
export interface Turn {
  role: string;
  content: Block[] | string;
}

export function requestProblems(turns: readonly Turn[]): string[] {
  const problems: string[] = [];
  const blocks = (turn: Turn | undefined): Block[] =>
    turn === undefined ? [] : typeof turn.content === "string" ? [{ type: "text", text: turn.content }] : turn.content;
  if (turns[0]?.role !== "user") problems.push("the request does not start with a user turn");
  turns.forEach((turn, i) => {
    if (i > 0 && turns[i - 1]!.role === turn.role) problems.push(`turns ${i - 1} and ${i} are both ${turn.role}`);
    const uses = blocks(turn)
      .filter((b) => b.type === "tool_use")
      .map((b) => b.id);
    const results = blocks(turn)
      .filter((b) => b.type === "tool_result")
      .map((b) => b.tool_use_id);
    const previousUses = new Set(
      blocks(turns[i - 1])
        .filter((b) => b.type === "tool_use")
        .map((b) => b.id),
    );
    for (const id of results) if (!previousUses.has(id)) problems.push(`turn ${i} answers ${id}, which the turn before did not call`);
    if (uses.length > 0) {
      const answered = new Set(
        blocks(turns[i + 1])
          .filter((b) => b.type === "tool_result")
          .map((b) => b.tool_use_id),
      );
      for (const id of uses) if (!answered.has(id)) problems.push(`tool_use ${id} of turn ${i} is not answered in the next turn`);
    }
  });
  return problems;
}

/** The text of a request's turns, for finding the task or a summary in it. */
export function requestText(turns: readonly Turn[]): string {
  return turns.flatMap((turn) => (typeof turn.content === "string" ? [turn.content] : turn.content.map((b) => b.text ?? ""))).join("\n");
}

/**
 * The turns of a recorded model request, in the Anthropic shape whatever its dialect: a Chat
 * Completions request's `tool` messages become tool_result blocks of a user turn, its
 * `tool_calls` tool_use blocks, and consecutive turns of one role are joined.
 */
export function requestTurns(path: string, body: unknown): Turn[] {
  const messages = ((body as { messages?: Record<string, unknown>[] } | null)?.messages ?? []) as Record<string, unknown>[];
  if (!path.endsWith("/chat/completions")) return messages as unknown as Turn[];
  const turns: { role: string; content: Block[] }[] = [];
  for (const m of messages) {
    if (m.role === "system") continue;
    const role = m.role === "assistant" ? "assistant" : "user";
    const blocks: Block[] =
      m.role === "tool"
        ? [{ type: "tool_result", tool_use_id: String(m.tool_call_id) }]
        : [
            ...(typeof m.content === "string" ? [{ type: "text", text: m.content }] : []),
            ...((m.tool_calls as { id: string }[] | undefined) ?? []).map((c) => ({ type: "tool_use", id: c.id })),
          ];
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  return turns;
}
