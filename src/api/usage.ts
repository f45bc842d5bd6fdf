/**
 * A tenant's usage as the API shows it: totals over a recent window plus the daily rows, so a
 * dashboard needs one call. Shared by the tenant's own view and the admin views.
 */
import { z } from "@hono/zod-openapi";
import type { UsageDay } from "../tenants/types";
import { UsageDaySchema } from "./schemas";

/** The window of `GET /v1/tenant` and the admin views: a month of days. */
export const USAGE_WINDOW_DAYS = 30;

export const UsageTotalsSchema = z
  .object({
    window_days: z.number().int().openapi({ example: USAGE_WINDOW_DAYS }),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cache_read_tokens: z.number().int(),
    cache_write_tokens: z.number().int(),
    steps: z.number().int(),
    sessions_created: z.number().int(),
  })
  .openapi("UsageTotals", { description: "Sums over the last `window_days` UTC days, today included." });

export const TenantUsageSchema = UsageTotalsSchema.extend({ daily: z.array(UsageDaySchema) }).openapi("TenantUsage");

export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

/** Pure: sums the rows of a window (days without usage may have no row). */
export function usageTotals(days: readonly UsageDay[], windowDays: number): UsageTotals {
  const totals: UsageTotals = {
    window_days: windowDays,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    steps: 0,
    sessions_created: 0,
  };
  for (const day of days) {
    totals.input_tokens += day.input_tokens;
    totals.output_tokens += day.output_tokens;
    totals.cache_read_tokens += day.cache_read_tokens;
    totals.cache_write_tokens += day.cache_write_tokens;
    totals.steps += day.steps;
    totals.sessions_created += day.sessions_created;
  }
  return totals;
}
