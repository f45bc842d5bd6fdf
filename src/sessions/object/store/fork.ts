/**
 * What a fork copies, read from the source's tables and written into the new session's: the
 * messages up to a seq (their seqs kept, so a tool call's `message_seq` still points at its
 * message), the tool calls of those messages, and each image they show, once. Summaries, steps,
 * events and the queue are not copied: the fork has run nothing yet.
 */
import { estimateMessageTokens, messageKind } from "../context/estimate";
import type { ContentBlock, Role, SessionInit } from "../../../session-config/types";
import { imageData, putImage, type StoredImage } from "./images";

/** Every column of `tool_calls`, as the migrations made it: the only names a copy may write. */
const TOOL_CALL_COLUMNS = [
  "id",
  "step",
  "message_seq",
  "position",
  "name",
  "input",
  "status",
  "output",
  "is_error",
  "created_at",
  "started_at",
  "finished_at",
  "restarts",
  "decided_by",
  "decided_at",
  "decision",
  "policy",
] as const;

export interface ForkMessage {
  seq: number;
  role: Role;
  /** JSON content blocks, as stored. */
  content: string;
  created_at: string;
  /** 1: not sent to the model (a refused exchange), in the fork as in its source. */
  omitted: number;
}

export interface ForkRows {
  messages: ForkMessage[];
  toolCalls: Record<string, SqlStorageValue>[];
  images: { image: StoredImage; data: Uint8Array }[];
}

/** What a fork copies from its source: its settings, the seq it ends at (0: no message) and the rows. */
export interface ForkCopy {
  /** The source's settings as stored (MCP header values in clear: they stay inside the platform). */
  session: SessionInit & { created_at: string };
  at_seq: number;
  rows: ForkRows;
}

/** The rows up to `atSeq` (inclusive); `withImages` false: the images table was never made. */
export function readForkRows(sql: SqlStorage, atSeq: number, withImages: boolean): ForkRows {
  const messages = sql
    .exec<{ seq: number; role: Role; content: string; created_at: string; omitted: number }>(
      "SELECT seq, role, content, created_at, omitted FROM messages WHERE seq <= ? ORDER BY seq",
      atSeq,
    )
    .toArray()
    .map((row) => ({
      seq: Number(row.seq),
      role: row.role,
      content: row.content,
      created_at: row.created_at,
      omitted: Number(row.omitted),
    }));
  const toolCalls = sql
    .exec(`SELECT ${TOOL_CALL_COLUMNS.join(", ")} FROM tool_calls WHERE message_seq <= ? ORDER BY message_seq, position`, atSeq)
    .toArray();
  const ids = new Set<string>();
  for (const message of messages) {
    for (const block of JSON.parse(message.content) as ContentBlock[]) if (block.type === "image") ids.add(block.source.image_id);
  }
  const images: ForkRows["images"] = [];
  for (const id of withImages ? ids : []) {
    const row = sql
      .exec<StoredImage & Record<string, SqlStorageValue>>("SELECT id, media_type, size_bytes, width, height FROM images WHERE id = ?", id)
      .toArray()[0];
    const data = imageData(sql, id);
    if (row && data)
      images.push({
        image: {
          id: row.id,
          media_type: row.media_type,
          size_bytes: Number(row.size_bytes),
          width: Number(row.width),
          height: Number(row.height),
        },
        data,
      });
  }
  return { messages, toolCalls, images };
}

/** Bytes a copy carries, to keep it inside one call's limit. */
export function forkRowsBytes(rows: ForkRows): number {
  let bytes = 0;
  for (const message of rows.messages) bytes += message.content.length * 2;
  for (const call of rows.toolCalls) for (const value of Object.values(call)) if (typeof value === "string") bytes += value.length * 2;
  for (const { data } of rows.images) bytes += data.byteLength;
  return bytes;
}

/** Writes the copied rows into a new session's empty tables; each message's estimate and kind computed as on any save. */
export function writeForkRows(sql: SqlStorage, rows: ForkRows, now: string): void {
  for (const message of rows.messages) {
    const content = JSON.parse(message.content) as ContentBlock[];
    sql.exec(
      "INSERT INTO messages (seq, role, content, created_at, tokens, kind, omitted) VALUES (?, ?, ?, ?, ?, ?, ?)",
      message.seq,
      message.role,
      message.content,
      message.created_at,
      estimateMessageTokens(content),
      messageKind(message.role, content),
      message.omitted ? 1 : 0,
    );
  }
  for (const call of rows.toolCalls) {
    const columns = TOOL_CALL_COLUMNS.filter((column) => column in call);
    sql.exec(
      `INSERT INTO tool_calls (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
      ...columns.map((column) => call[column] ?? null),
    );
  }
  for (const { image, data } of rows.images) putImage(sql, image, data, now);
}
