/** The `summaries` table: the newest row is the session's summary, each extending the one before. */

export interface StoredSummary {
  id: number;
  first_seq: number;
  last_seq: number;
  content: string;
  tokens: number;
  created_at: string;
}

export function latestSummary(sql: SqlStorage): StoredSummary | null {
  const row = sql.exec("SELECT * FROM summaries ORDER BY id DESC LIMIT 1").toArray()[0];
  return row ? toSummary(row) : null;
}

export function summaries(sql: SqlStorage): StoredSummary[] {
  return sql.exec("SELECT * FROM summaries ORDER BY id").toArray().map(toSummary);
}

export function saveSummary(sql: SqlStorage, summary: Omit<StoredSummary, "id">): void {
  sql.exec(
    "INSERT INTO summaries (first_seq, last_seq, content, tokens, created_at) VALUES (?, ?, ?, ?, ?)",
    summary.first_seq,
    summary.last_seq,
    summary.content,
    summary.tokens,
    summary.created_at,
  );
}

function toSummary(row: Record<string, SqlStorageValue>): StoredSummary {
  return {
    id: Number(row.id),
    first_seq: Number(row.first_seq),
    last_seq: Number(row.last_seq),
    content: String(row.content),
    tokens: Number(row.tokens),
    created_at: String(row.created_at),
  };
}
