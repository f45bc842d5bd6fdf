/**
 * The `images` and `image_chunks` tables: each image of the session once, under its content id,
 * its bytes in chunks; messages and queued messages refer to it by id.
 */
import type { ImageMediaType } from "../../../session-config/types";

/** An image as stored, without its bytes. */
export interface StoredImage {
  id: string;
  media_type: ImageMediaType;
  size_bytes: number;
  width: number;
  height: number;
}

/** Bytes per `image_chunks` row: well inside the 2 MB a Durable Object's SQLite row may hold. */
export const IMAGE_CHUNK_BYTES = 1024 * 1024;

export function putImage(sql: SqlStorage, image: StoredImage, data: Uint8Array, now: string): void {
  const inserted = sql.exec(
    "INSERT OR IGNORE INTO images (id, media_type, size_bytes, width, height, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    image.id,
    image.media_type,
    image.size_bytes,
    image.width,
    image.height,
    now,
  ).rowsWritten;
  if (inserted === 0) return;
  for (let at = 0, idx = 0; at < data.length; at += IMAGE_CHUNK_BYTES, idx++) {
    sql.exec(
      "INSERT INTO image_chunks (image_id, idx, data) VALUES (?, ?, ?)",
      image.id,
      idx,
      data.slice(at, at + IMAGE_CHUNK_BYTES).buffer,
    );
  }
}

export function imageData(sql: SqlStorage, id: string): Uint8Array | null {
  const meta = sql.exec("SELECT size_bytes FROM images WHERE id = ?", id).toArray()[0];
  if (!meta) return null;
  const bytes = new Uint8Array(Number(meta.size_bytes));
  let offset = 0;
  for (const row of sql.exec("SELECT data FROM image_chunks WHERE image_id = ? ORDER BY idx", id)) {
    const chunk = new Uint8Array(row.data as ArrayBuffer);
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return offset === bytes.length ? bytes : null;
}
