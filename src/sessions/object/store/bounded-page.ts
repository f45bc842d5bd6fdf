/**
 * A page read row by row from a SQL cursor, cut at a count and at a size: rows past the cut are
 * never read, so a page of large rows costs the object its size, not the whole table's.
 */

type Row = Record<string, SqlStorageValue>;

export interface BoundedRows {
  rows: Row[];
  /** Rows were left after the cut. */
  more: boolean;
}

/**
 * At most `limit` rows of `cursor`, and no more once their `size` together would pass `maxChars`
 * (the first row is always taken: a page moves on however large one row is, and a stored value is
 * at most 2 MB).
 */
export function takeWithin(cursor: Iterable<Row>, limit: number, maxChars: number, size: (row: Row) => number): BoundedRows {
  const rows: Row[] = [];
  let chars = 0;
  for (const row of cursor) {
    const rowChars = size(row);
    if (rows.length >= limit || (rows.length > 0 && chars + rowChars > maxChars)) return { rows, more: true };
    rows.push(row);
    chars += rowChars;
  }
  return { rows, more: false };
}

/** The characters of a row's text columns: what its JSON costs, near enough. */
export function textChars(row: Row, columns: readonly string[]): number {
  let chars = 0;
  for (const column of columns) {
    const value = row[column];
    if (typeof value === "string") chars += value.length;
  }
  return chars;
}
