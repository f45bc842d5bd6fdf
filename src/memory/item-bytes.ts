/**
 * What an item costs the store in bytes, as `max_memory_bytes` counts it: its row, each earlier
 * version kept, its part of the full-text index and its vector (measured: BENCHMARKS.md, Memory).
 * Migration 7 writes the same estimate in SQL for the items it found.
 */

/** A row and its index entries beyond their text: the record's header and integers, cell pointers, page fill. */
export const ROW_BYTES = 128;
/**
 * A vector's row beyond its floats: measured 4,710 bytes for 1,024 dimensions (4,096 bytes), the
 * row spilling onto an overflow page of its own.
 */
export const VECTOR_ROW_BYTES = 640;
/** The full-text index's own cost of an item, beyond its text. */
export const INDEX_ROW_BYTES = 100;
/**
 * The index's bytes per byte of indexed text, as a fraction (5/4): measured from 0.44 (words of a 5,000-word vocabulary) to
 * 1.25 (64 KiB of distinct short tokens, the worst found), so a writer cannot make its text cost
 * more than it is counted for by choosing its words.
 */
const INDEX_PER_TEXT = { times: 5, per: 4 };

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** A row of `items` or `item_versions`: the value, and the namespace and key in the row and its unique index. */
export function rowBytes(namespace: string, key: string, valueText: string): number {
  return ROW_BYTES + 2 * (utf8Bytes(namespace) + utf8Bytes(key)) + utf8Bytes(valueText);
}

/** The item's part of the full-text index: its text and its scope tokens. */
export function indexBytes(body: string, scope: string): number {
  const text = utf8Bytes(body) + utf8Bytes(scope);
  return INDEX_ROW_BYTES + Math.floor((INDEX_PER_TEXT.times * text + INDEX_PER_TEXT.per - 1) / INDEX_PER_TEXT.per);
}

/** The item's vector row: float32 values and the model's name. */
export function vectorBytes(vector: { model: string; values: Float32Array } | null): number {
  return vector === null ? 0 : VECTOR_ROW_BYTES + 4 * vector.values.length + utf8Bytes(vector.model);
}
