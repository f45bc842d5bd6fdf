/**
 * Per-day usage of a tenant (UTC days), and when its daily token budget renews. Rows only ever
 * grow and outlive the sessions they counted, so erasing a session does not rewrite history or
 * refund the day's token budget.
 */
import type { UsageDay } from "./types";
import { utcDay } from "../shared/validate";

/** `usage()` looks back at most this many days. */
export const MAX_USAGE_DAYS = 366;
/** One UTC day; usage and the daily token budget count by it. */
export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Pure: null while today's budget lasts, else the seconds until it renews at the next UTC
 * midnight. A run already going may finish past the budget; a new one may not start.
 */
export function dailyBudgetRetryAfter(tokensToday: number, maxTokensPerDay: number | null, now: number): number | null {
  if (maxTokensPerDay === null || tokensToday < maxTokensPerDay) return null;
  const nextMidnight = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  return Math.max(1, Math.ceil((nextMidnight - now) / 1000));
}

export type UsageDelta = Omit<UsageDay, "day">;

export const NO_USAGE: UsageDelta = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  steps: 0,
  sessions_created: 0,
};

/** Adds `delta` to the usage row of `day` (a UTC day), creating it: rows only grow. */
export function recordDailyUsage(sql: SqlStorage, day: string, delta: UsageDelta): void {
  if (Object.values(delta).every((n) => !n)) return;
  sql.exec(
    `INSERT INTO usage_daily (day, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, steps, sessions_created) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (day) DO UPDATE SET
       input_tokens = input_tokens + excluded.input_tokens,
       output_tokens = output_tokens + excluded.output_tokens,
       cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
       cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
       steps = steps + excluded.steps,
       sessions_created = sessions_created + excluded.sessions_created`,
    day,
    delta.input_tokens,
    delta.output_tokens,
    delta.cache_read_tokens,
    delta.cache_write_tokens,
    delta.steps,
    delta.sessions_created,
  );
}

/** Every token counted on the UTC day of `now`: input, output, and prompt-cache reads and writes. */
export function tokensOnDay(sql: SqlStorage, now: number): number {
  const rows = sql
    .exec<{ n: number }>(
      `SELECT input_tokens + output_tokens + cache_read_tokens + cache_write_tokens AS n FROM usage_daily WHERE day = ?`,
      utcDay(now),
    )
    .toArray();
  return rows[0]?.n ?? 0;
}

/** One row per UTC day, newest first, ending with the day of `now`; days without use are zeros. */
/** Null `sql`: an index no tenant was entered in, with no tables yet; every day is empty. */
export function usageDays(sql: SqlStorage | null, now: number, days: number): UsageDay[] {
  const wanted: string[] = [];
  for (let i = 0; i < days; i++) wanted.push(utcDay(now - i * DAY_MS));
  const oldest = wanted[wanted.length - 1] ?? utcDay(now);
  const stored = new Map<string, UsageDay>();
  const rows =
    sql?.exec<UsageDay & Record<string, string | number>>(
      `SELECT day, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, steps, sessions_created FROM usage_daily WHERE day >= ? AND day <= ?`,
      oldest,
      utcDay(now),
    ) ?? [];
  for (const row of rows) stored.set(row.day, { ...row });
  return wanted.map((day) => stored.get(day) ?? { day, ...NO_USAGE });
}
