/**
 * The `messages` table: the conversation, each message saved with its token estimate and kind,
 * computed once when it is saved, for every later fit of the context window. A message marked
 * `omitted` (a refused exchange) stays in the history but is never sent to the model again: the
 * reads a model call makes (`…ForWindow`, `messageRange`, the task's meta, `sentOnly`) skip it.
 */
import { estimateMessageTokens, type MessageKind, messageKind } from "../context/estimate";
import type { MessageMeta } from "../context/window";
import type { ContentBlock, Message, Role } from "../../../session-config/types";
import { takeWithin, textChars } from "./bounded-page";

type Row = Record<string, SqlStorageValue>;

export function appendMessage(sql: SqlStorage, role: Role, content: ContentBlock[], now: string): Message {
  const row = sql
    .exec(
      "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES (?, ?, ?, ?, ?) RETURNING seq",
      role,
      JSON.stringify(content),
      now,
      estimateMessageTokens(content),
      messageKind(role, content),
    )
    .one();
  return { seq: Number(row.seq), role, content, created_at: now };
}

export function messages(sql: SqlStorage, after: number, limit: number): Message[] {
  return sql
    .exec("SELECT seq, role, content, created_at FROM messages WHERE seq > ? ORDER BY seq LIMIT ?", after, limit)
    .toArray()
    .map(toMessage);
}

/** A page of messages after `after`: at most `limit`, cut at `maxChars` of content; `more` when some were left. */
export function messagePage(sql: SqlStorage, after: number, limit: number, maxChars: number): { messages: Message[]; more: boolean } {
  const cursor = sql.exec("SELECT seq, role, content, created_at FROM messages WHERE seq > ? ORDER BY seq", after);
  const { rows, more } = takeWithin(cursor, limit, maxChars, (row) => textChars(row, ["content"]));
  return { messages: rows.map(toMessage), more };
}

export function messagesForWindow(sql: SqlStorage, fromSeq: number | null, alsoSeqs: readonly number[]): Message[] {
  const start = fromSeq ?? Number.MAX_SAFE_INTEGER;
  const extra = alsoSeqs.length ? ` OR seq IN (${alsoSeqs.map(() => "?").join(", ")})` : "";
  return sql
    .exec(`SELECT seq, role, content, created_at FROM messages WHERE omitted = 0 AND (seq >= ?${extra}) ORDER BY seq`, start, ...alsoSeqs)
    .toArray()
    .map(toMessage);
}

export function messageRange(sql: SqlStorage, fromSeq: number, toSeq: number): Message[] {
  return sql
    .exec("SELECT seq, role, content, created_at FROM messages WHERE seq >= ? AND seq <= ? AND omitted = 0 ORDER BY seq", fromSeq, toSeq)
    .toArray()
    .map(toMessage);
}

export function* metaNewestFirst(sql: SqlStorage, afterSeq: number, sentOnly: boolean): Generator<MessageMeta> {
  const cursor = sql.exec(
    `SELECT seq, kind, tokens FROM messages WHERE seq > ?${sentOnly ? " AND omitted = 0" : ""} ORDER BY seq DESC`,
    afterSeq,
  );
  for (const row of cursor) yield toMeta(row);
}

/** The first message a caller sent (a run's input, never a tool result), omitted or not: what the session's title is made from. */
export function firstInput(sql: SqlStorage): Message | undefined {
  const row = sql.exec("SELECT seq, role, content, created_at FROM messages WHERE kind = 'input' ORDER BY seq LIMIT 1").toArray()[0];
  return row ? toMessage(row) : undefined;
}

export function firstMessageMeta(sql: SqlStorage): MessageMeta | null {
  const row = sql.exec("SELECT seq, kind, tokens FROM messages WHERE omitted = 0 ORDER BY seq LIMIT 1").toArray()[0];
  return row ? toMeta(row) : null;
}

export function messageMeta(sql: SqlStorage, seq: number): MessageMeta | null {
  const row = sql.exec("SELECT seq, kind, tokens FROM messages WHERE seq = ?", seq).toArray()[0];
  return row ? toMeta(row) : null;
}

export function message(sql: SqlStorage, seq: number): Message | undefined {
  const row = sql.exec("SELECT seq, role, content, created_at FROM messages WHERE seq = ?", seq).toArray()[0];
  return row ? toMessage(row) : undefined;
}

export function latestMessages(sql: SqlStorage, limit: number): Message[] {
  return sql.exec("SELECT seq, role, content, created_at FROM messages ORDER BY seq DESC LIMIT ?", limit).toArray().map(toMessage);
}

/** Marks the messages from `fromSeq` on as never to be sent to the model again. */
export function omitFrom(sql: SqlStorage, fromSeq: number): void {
  sql.exec("UPDATE messages SET omitted = 1 WHERE seq >= ?", fromSeq);
}

export function hasMessagesBefore(sql: SqlStorage, seq: number): boolean {
  return sql.exec("SELECT 1 FROM messages WHERE seq < ? LIMIT 1", seq).toArray().length > 0;
}

function toMessage(row: Row): Message {
  return {
    seq: Number(row.seq),
    role: row.role as Role,
    content: JSON.parse(String(row.content)) as ContentBlock[],
    created_at: String(row.created_at),
  };
}

function toMeta(row: Row): MessageMeta {
  return { seq: Number(row.seq), kind: String(row.kind) as MessageKind, tokens: Number(row.tokens) };
}
