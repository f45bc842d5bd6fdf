/**
 * The calls a session's run waits on for an answer from outside it: a person's approval or a
 * client tool's output. The one reading of them that the A2A, AG-UI and chat edges share.
 */
import { WAITING_STATUSES } from "../session-config/statuses";
import type { ToolCall } from "../session-config/types";
import type { SessionClient } from "./client";

/** The waits an answer ends (a call's status, and its session's while it waits): all but waiting for child sessions. */
export const ANSWERABLE_STATUSES: readonly string[] = WAITING_STATUSES.filter((status) => status !== "waiting_subagents");

export function waitsForAnswer(status: string): boolean {
  return ANSWERABLE_STATUSES.includes(status);
}

/** Calls read per page, and pages read at most (a run waits on far fewer). */
const PAGE = 100;
const MAX_PAGES = 20;

export async function waitingCalls(client: Pick<SessionClient, "listToolCalls">): Promise<ToolCall[]> {
  const waiting: ToolCall[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { data, next_cursor } = await client.listToolCalls(cursor, PAGE);
    waiting.push(...data.filter((call) => waitsForAnswer(call.status)));
    if (next_cursor === null) break;
    cursor = next_cursor;
  }
  return waiting;
}
