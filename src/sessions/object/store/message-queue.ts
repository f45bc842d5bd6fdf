/** The `pending_messages` table: messages posted with `if_running: enqueue`, each starting a run in turn. */
import type { ContentBlock, RunOptions } from "../../../session-config/types";

/** A message waiting for its run (`if_running: enqueue`). */
export interface QueuedMessage {
  content: ContentBlock[];
  options: RunOptions;
}

export function enqueueMessage(sql: SqlStorage, content: ContentBlock[], options: RunOptions, now: string): void {
  sql.exec(
    "INSERT INTO pending_messages (content, created_at, options) VALUES (?, ?, ?)",
    JSON.stringify(content),
    now,
    JSON.stringify(options),
  );
}

export function queuedMessages(sql: SqlStorage): number {
  return Number(sql.exec("SELECT COUNT(*) AS n FROM pending_messages").one().n);
}

export function dequeueMessage(sql: SqlStorage): QueuedMessage | null {
  const row = sql
    .exec("DELETE FROM pending_messages WHERE id = (SELECT MIN(id) FROM pending_messages) RETURNING content, options")
    .toArray()[0];
  if (!row) return null;
  // Rows queued before per-message options existed hold NULL: they start with no options.
  return {
    content: JSON.parse(String(row.content)) as ContentBlock[],
    options: row.options === null ? {} : (JSON.parse(String(row.options)) as RunOptions),
  };
}

export function clearQueue(sql: SqlStorage): number {
  return sql.exec("DELETE FROM pending_messages").rowsWritten;
}
