/**
 * Forks: the source answers a copy of what it has saved up to a seq (`forkCopy`, a read that
 * changes nothing), and the new session is created from it in one transaction (`createFork`),
 * with an idle run or, given input, a run started at once. A seq between a `tool_use` and its
 * `tool_result` is refused: the fork would hold a call no result answers.
 */
import { type ForkCopy, type ForkRows, forkRowsBytes } from "../store/fork";
import type { ControlHost } from "./host";
import type { RunInput, RunOptions, SessionInit, SessionResult } from "../../../session-config/types";
import { MAX_INPUT_IMAGE_BYTES } from "../../../limits";
import type { Answer } from "./answers";
import { createWith, SESSION_EXISTS } from "./create";
import { startRunWith } from "./messages";

/**
 * A copy crosses one RPC call (32 MiB at most) from the source to the gateway, and on to the fork
 * beside the fork's first input, whose images may be 16 MiB (`MAX_INPUT_IMAGE_BYTES`): the two
 * together stay under the call's limit with room for its framing.
 */
export const MAX_FORK_BYTES = 32 * 1024 * 1024 - MAX_INPUT_IMAGE_BYTES - 2 * 1024 * 1024;

export type { ForkCopy };

export function forkCopy(host: Pick<ControlHost, "store" | "requireSession">, atSeq: number | null): SessionResult<ForkCopy> {
  if (atSeq !== null && (!Number.isSafeInteger(atSeq) || atSeq < 0)) throw new TypeError("atSeq must be a non-negative integer or null");
  const session = host.requireSession();
  const store = host.store;
  let last = 0;
  let whole = 0;
  for (const meta of store.metaNewestFirst(0)) {
    if (last === 0) last = meta.seq;
    if (meta.kind !== "tool_use") {
      whole = meta.seq;
      break;
    }
  }
  const at = atSeq ?? whole;
  if (at > last) return invalid(`at_seq ${at} is after the session's last message (${last}).`);
  if (at > 0) {
    const meta = store.messageMeta(at);
    if (!meta) return invalid(`The session has no message ${at}.`);
    if (meta.kind === "tool_use")
      return invalid(`Message ${at} asks for tool calls whose results come after it: fork at the result, or before the call.`);
  }
  const rows = store.forkRows(at);
  const bytes = forkRowsBytes(rows);
  if (bytes > MAX_FORK_BYTES)
    return invalid(`The history up to message ${at} holds ${bytes} bytes; a fork copies at most ${MAX_FORK_BYTES}.`);
  return { ok: true, value: { session, at_seq: at, rows } };
}

function invalid(detail: string): SessionResult<never> {
  return { ok: false, reason: "invalid", detail, field: "body.at_seq" };
}

/** The new session, with the copied rows, in one transaction; then, with input, its first run. */
export function createFork(
  host: Parameters<typeof createWith>[0],
  init: SessionInit,
  rows: ForkRows,
  input: RunInput | null,
  options: RunOptions,
): Promise<Answer> {
  return createWith(host, init, input, { existing: SESSION_EXISTS, rows }, (prepared) => startRunWith(host, prepared, options));
}
