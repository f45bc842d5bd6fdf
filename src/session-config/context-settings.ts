/**
 * A session's context settings as the session object uses them: what the gateway validated, with the
 * defaults filled in. Sessions stored before settings existed (null, or any other object
 * their caller kept there) use `auto`. Pure.
 */
import { CONTEXT_STRATEGIES, type ContextSettings } from "./types";

/** `last_messages` without a count sends this many of the newest messages. */
export const DEFAULT_LAST_MESSAGES = 20;
export const MAX_LAST_MESSAGES = 1000;
/** Below this an input budget cannot hold a task and one step; above, no model has the room. */
export const MIN_MAX_INPUT_TOKENS = 256;
export const MAX_MAX_INPUT_TOKENS = 10_000_000;

export interface ResolvedContext {
  strategy: ContextSettings["strategy"];
  maxInputTokens: number | null;
  /** Only for `last_messages`. */
  lastMessages: number | null;
}

export function resolveContext(raw: unknown): ResolvedContext {
  const settings = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const strategy = (CONTEXT_STRATEGIES as readonly unknown[]).includes(settings.strategy)
    ? (settings.strategy as ResolvedContext["strategy"])
    : "auto";
  const max = settings.max_input_tokens;
  const maxInputTokens = Number.isInteger(max) && (max as number) >= MIN_MAX_INPUT_TOKENS ? (max as number) : null;
  const count = settings.last_messages;
  const lastMessages =
    strategy !== "last_messages" ? null : Number.isInteger(count) && (count as number) >= 1 ? (count as number) : DEFAULT_LAST_MESSAGES;
  return { strategy, maxInputTokens, lastMessages };
}
