/**
 * The at-most-once rule, in one place: how a call is kept from having its effect twice. Every
 * path asks it: the tool step (whether to mark a call `running` first, and durably), a restart
 * or a pause that finds a call `running`, and the tries within a webhook or MCP call.
 */
import { once, type RetryPolicy } from "../../../shared/retry";

export interface CallRule {
  /** Marked `running` before its effect: what a restart finds. Only an instant, repeatable tool is not. */
  readonly markFirst: boolean;
  /** The mark made durable before the effect, since a repeat would be wrong. */
  readonly durableMark: boolean;
  /** A call cut off while `running` (a restart, a pause) may run again. */
  readonly repeatAfterCut: boolean;
  /** The tries within one call under `policy`: one alone when a repeat would be wrong. */
  tries(policy: RetryPolicy): RetryPolicy;
}

/**
 * Pure: the rule for a tool's calls. `atMostOnce`: the tool's flag; undefined for a tool the
 * session no longer has, whose effect is unknown, so it is treated as at-most-once.
 */
export function markAtMostOnce(atMostOnce: boolean | undefined, instant = false): CallRule {
  const single = atMostOnce !== false;
  return {
    markFirst: single || !instant,
    durableMark: single,
    repeatAfterCut: !single,
    tries: (policy) => (single ? once(policy) : policy),
  };
}
