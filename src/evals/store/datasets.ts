/** The `datasets` and `dataset_items` tables (src/agents/storage.md): every read and write of them. */
import { decodeTimeIdCursor, encodeTimeIdCursor } from "../../shared/cursor";
import { toIso } from "../../shared/validate";
import type { Dataset, DatasetItem } from "../types";

interface DatasetRow extends Record<string, SqlStorageValue> {
  id: string;
  name: string;
  version: number;
  item_count: number;
  created_by: string;
  created_at: number;
  updated_at: number;
}

export function toDataset(row: DatasetRow): Dataset {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    item_count: row.item_count,
    created_by: row.created_by,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

export function countDatasets(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM datasets").one().n;
}

export function getDataset(sql: SqlStorage, id: string): DatasetRow | null {
  return sql.exec<DatasetRow>("SELECT * FROM datasets WHERE id = ?", id).toArray()[0] ?? null;
}

export function insertDataset(sql: SqlStorage, id: string, name: string, items: DatasetItem[], createdBy: string, now: number): void {
  sql.exec(
    "INSERT INTO datasets (id, name, version, item_count, created_by, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?)",
    id,
    name,
    items.length,
    createdBy,
    now,
    now,
  );
  items.forEach((item, position) => insertItem(sql, id, position, item));
}

function insertItem(sql: SqlStorage, datasetId: string, position: number, item: DatasetItem): void {
  sql.exec("INSERT INTO dataset_items (dataset_id, position, item) VALUES (?, ?, ?)", datasetId, position, JSON.stringify(item));
}

/** Items at the end, in order; the caller checked the count. */
export function appendItems(sql: SqlStorage, row: DatasetRow, items: DatasetItem[], now: number): void {
  items.forEach((item, i) => insertItem(sql, row.id, row.item_count + i, item));
  bump(sql, row.id, row.item_count + items.length, now);
}

export function replaceItem(sql: SqlStorage, row: DatasetRow, position: number, item: DatasetItem, now: number): void {
  sql.exec("UPDATE dataset_items SET item = ? WHERE dataset_id = ? AND position = ?", JSON.stringify(item), row.id, position);
  bump(sql, row.id, row.item_count, now);
}

/** Removes one item; those after it move up one, so positions stay 0..n-1. */
export function deleteItem(sql: SqlStorage, row: DatasetRow, position: number, now: number): void {
  sql.exec("DELETE FROM dataset_items WHERE dataset_id = ? AND position = ?", row.id, position);
  // Shifted through negatives first: the primary key would collide moving up in place.
  sql.exec("UPDATE dataset_items SET position = -position WHERE dataset_id = ? AND position > ?", row.id, position);
  sql.exec("UPDATE dataset_items SET position = -position - 1 WHERE dataset_id = ? AND position < 0", row.id);
  bump(sql, row.id, row.item_count - 1, now);
}

function bump(sql: SqlStorage, id: string, itemCount: number, now: number): void {
  sql.exec("UPDATE datasets SET version = version + 1, item_count = ?, updated_at = ? WHERE id = ?", itemCount, now, id);
}

export function listItems(sql: SqlStorage, datasetId: string): DatasetItem[] {
  return sql
    .exec<{ item: string }>("SELECT item FROM dataset_items WHERE dataset_id = ? ORDER BY position", datasetId)
    .toArray()
    .map((r) => JSON.parse(r.item) as DatasetItem);
}

export function deleteDataset(sql: SqlStorage, id: string): boolean {
  sql.exec("DELETE FROM dataset_items WHERE dataset_id = ?", id);
  return sql.exec("DELETE FROM datasets WHERE id = ?", id).rowsWritten > 0;
}

/** Newest first by (created_at, id). */
export function listDatasets(sql: SqlStorage, limit: number, cursor: string | null): { data: Dataset[]; next_cursor: string | null } {
  const args: (string | number)[] = [];
  let where = "";
  if (cursor !== null) {
    const after = decodeTimeIdCursor("datasets", cursor);
    if (!after) throw new RangeError("invalid cursor");
    where = "WHERE (created_at, id) < (?, ?)";
    args.push(after.ms, after.id);
  }
  const rows = sql
    .exec<DatasetRow>(`SELECT * FROM datasets ${where} ORDER BY created_at DESC, id DESC LIMIT ?`, ...args, limit + 1)
    .toArray();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toDataset),
    next_cursor: rows.length > limit && last ? encodeTimeIdCursor("datasets", last.created_at, last.id) : null,
  };
}
