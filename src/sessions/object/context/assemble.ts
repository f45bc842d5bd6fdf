/**
 * The messages of one model call, put together from what the fit chose: the pinned messages
 * (the session's task, the current run's), the summary in place of the messages it covers,
 * and the window of newest messages, in the order they happened. The task and the summary end
 * the stable prefix a provider may cache. Pure.
 */
import type { ContentBlock, Message, Role } from "../../../session-config/types";
import { summaryBlock } from "./summary-prompt";

export interface CallParts {
  /** The session's first message; always sent. */
  task: Message | null;
  /** The current run's first message, when it is not the task; always sent. */
  runTask: Message | null;
  /** The summary sent in place of the messages from `first_seq` to `last_seq`. */
  summary: { first_seq: number; last_seq: number; content: string } | null;
  /** The newest messages, oldest first; may hold the pinned ones too. */
  window: readonly Message[];
}

/** A message of a call as stored: its images are still references (see images/resolve.ts). */
export interface CallMessage {
  role: Role;
  content: ContentBlock[];
  /** Ends the stable prefix a provider may cache (see `ModelMessage.cache`). */
  cache?: boolean;
}

export function assemble({ task, runTask, summary, window }: CallParts): CallMessage[] {
  const bySeq = new Map<number, Message>();
  for (const message of [task, runTask, ...window]) if (message) bySeq.set(message.seq, message);
  // The summary stands where the first message it covers stood: after the task, and before a
  // run's task that it also covers (that task is still sent word for word).
  const items: { order: number; message: CallMessage }[] = [...bySeq.values()].map((m) => ({
    order: m.seq,
    message: { role: m.role, content: m.content, ...(m.seq === task?.seq ? { cache: true } : {}) },
  }));
  if (summary)
    items.push({ order: summary.first_seq - 0.5, message: { role: "user", content: [summaryBlock(summary.content)], cache: true } });
  return items.sort((a, b) => a.order - b.order).map((item) => item.message);
}
