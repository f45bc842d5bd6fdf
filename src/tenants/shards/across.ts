/**
 * How the tenant index's reads cover every shard: its own rows and each shard's, merged.
 * Sessions are listed newest first by (created_at, id), a total order, so the cursor of a merged
 * page is the position of its last row, as on one object, and each shard is asked for the rows
 * after it: pages are exact across shards.
 */
import { tenantShardStub } from "../../objects";
import { encodeTimeIdCursor } from "../../shared/cursor";
import type { Page, SessionSummary } from "../../session-config/types";
import type { RollupRow } from "../../usage/rollup";
import type * as T from "../types";
import { everyShard, type ShardLayout } from "../../shared/shard-layout";

export type ShardStub = ReturnType<typeof tenantShardStub>;

export function shardStubs(env: Cloudflare.Env, tenantId: string, layouts: readonly ShardLayout[]): ShardStub[] {
  return everyShard(layouts).map((ref) => tenantShardStub(env, tenantId, ref));
}

/** One page over the index's page and each shard's, each of them asked for `limit` rows after the same cursor. */
export function mergePages(pages: readonly Page<SessionSummary>[], limit: number): Page<SessionSummary> {
  const rows = pages.flatMap((page) => page.data);
  rows.sort((a, b) => compareNewestFirst(a, b));
  const data = rows.slice(0, limit);
  const more = rows.length > limit || pages.some((page) => page.next_cursor !== null);
  const last = data[data.length - 1];
  return { data, next_cursor: more && last ? encodeTimeIdCursor("sessions", Date.parse(last.created_at), last.id) : null };
}

function compareNewestFirst(a: SessionSummary, b: SessionSummary): number {
  const byTime = Date.parse(b.created_at) - Date.parse(a.created_at);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export function sumCounts(all: readonly T.StatusCounts[]): T.StatusCounts {
  const [first, ...rest] = all;
  const total = { ...first } as T.StatusCounts;
  for (const counts of rest) for (const [status, n] of Object.entries(counts)) total[status as keyof T.StatusCounts] += n;
  return total;
}

const DAY_COUNTS = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "steps", "sessions_created"] as const;

/** Usage days summed day by day (every list has the same days, newest first). */
export function sumUsageDays(all: readonly T.UsageDay[][]): T.UsageDay[] {
  const [first = [], ...rest] = all;
  return first.map((day, i) => {
    const sum = { ...day };
    for (const other of rest) for (const count of DAY_COUNTS) sum[count] += other[i]?.[count] ?? 0;
    return sum;
  });
}

const ROLLUP_COUNTS = ["runs", "steps", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"] as const;

/** Rollup rows of several objects summed by the dimensions they were grouped by, ordered as one object orders them (by `columns`). */
export function sumRollups(all: readonly RollupRow[][], columns: readonly string[]): RollupRow[] {
  const byKey = new Map<string, RollupRow>();
  for (const row of all.flat()) {
    const key = JSON.stringify([row.day, row.model, row.api_key_id, row.created_by, row.agent_id]);
    const kept = byKey.get(key);
    if (!kept) byKey.set(key, { ...row });
    else for (const count of ROLLUP_COUNTS) kept[count] += row[count];
  }
  const field = (row: RollupRow, column: string) => String((row as unknown as Record<string, unknown>)[column] ?? "");
  return [...byKey.values()].sort((a, b) => {
    for (const column of columns) {
      const x = field(a, column);
      const y = field(b, column);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
}
