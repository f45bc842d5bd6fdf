/**
 * What a child session tells its parent, and what its end means for the parent's tool call. Pure.
 * A report carries the child's revision: the parent applies one only when it is newer than what it
 * holds, so a report sent twice (a retry, the parent's own poll) changes nothing the second time.
 */
import {
  FINAL_STATUSES,
  type Message,
  type SessionStatus,
  type StopReason,
  STOP_REASONS,
  SESSION_STATUSES,
  type Usage,
} from "../../../session-config/types";

export interface ChildReport {
  tool_call_id: string;
  session_id: string;
  status: SessionStatus;
  stop_reason: StopReason | null;
  /** The child's run-state revision the report is as of. */
  revision: number;
  /** The child's own usage plus its descendants'. */
  usage: Usage;
  /** Set once the child ended: the parent's tool result. */
  result: ChildResult | null;
}

export interface ChildResult {
  output: string;
  is_error: boolean;
}

/** The end of a child as its parent's tool result: its `output` as JSON, else its final text; an error for a failed or cancelled child. */
export function childResult(
  child: { status: SessionStatus; stop_reason: StopReason | null; error: string | null; output: unknown; hasSchema: boolean },
  finalText: string,
): ChildResult | null {
  if (!FINAL_STATUSES.includes(child.status)) return null;
  if (child.status === "cancelled") return { output: "the agent's session was cancelled", is_error: true };
  if (child.status === "failed")
    return { output: `the agent's session failed (${child.stop_reason ?? "error"}): ${child.error ?? "no reason given"}`, is_error: true };
  // Ended at a limit that says why (a tree's budget): the parent's model is told which.
  if (child.error !== null)
    return { output: `the agent's session stopped (${child.stop_reason ?? "done"}): ${child.error}`, is_error: true };
  if (child.hasSchema && child.output !== null) return { output: JSON.stringify(child.output), is_error: false };
  return { output: finalText === "" ? "(the agent answered with no text)" : finalText, is_error: false };
}

/** The text of the newest assistant message among `messages` (oldest first), its text blocks joined. */
export function finalText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant") continue;
    const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
    if (text !== "") return text;
  }
  return "";
}

export { sumUsage } from "../store/subagents";
const USAGE_FIELDS = ["steps", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"] as const;

/** A report as received over RPC: checked field by field, since the parent's surface must not trust its callers. */
export function parseChildReport(value: unknown): ChildReport | null {
  if (typeof value !== "object" || value === null) return null;
  const r = value as Record<string, unknown>;
  const usage = r.usage as Record<string, unknown> | null;
  const result = r.result as Record<string, unknown> | null;
  const ok =
    typeof r.tool_call_id === "string" &&
    typeof r.session_id === "string" &&
    (SESSION_STATUSES as readonly unknown[]).includes(r.status) &&
    (r.stop_reason === null || (STOP_REASONS as readonly unknown[]).includes(r.stop_reason)) &&
    Number.isSafeInteger(r.revision) &&
    typeof usage === "object" &&
    usage !== null &&
    USAGE_FIELDS.every((field) => Number.isSafeInteger(usage[field]) && (usage[field] as number) >= 0) &&
    (result === null || (typeof result === "object" && typeof result.output === "string" && typeof result.is_error === "boolean"));
  return ok ? (value as ChildReport) : null;
}
