/** Schemas of the usage routes, and the one check of their range and grouping. */
import { z } from "@hono/zod-openapi";
import { DAY_MS } from "../../tenants/usage";
import { USAGE_RETENTION_DAYS } from "../../tenants/usage-rollup";
import { utcDay } from "../../shared/validate";
import type { Dimension } from "../../usage/report";
import { ApiError } from "../errors";

/** The range when none is asked: the last 30 UTC days, today included. */
export const DEFAULT_RANGE_DAYS = 30;
/** Longer than any list of the dimensions, each once. */
const MAX_GROUP_BY_CHARS = 100;

// zod's calendar-day check: a month 13 or a 30 February is a 400 here, never a Date that cannot be printed.
const DaySchema = z.iso.date("Must be a calendar day, YYYY-MM-DD.").max(10).openapi({ example: "2026-11-01" });

export function usageQuerySchema(dimensions: readonly Dimension[]) {
  return z.object({
    from: DaySchema.optional().openapi({
      description: `The first UTC day (inclusive); by default ${DEFAULT_RANGE_DAYS - 1} days before \`to\`.`,
    }),
    to: DaySchema.optional().openapi({ description: "The last UTC day (inclusive); by default today." }),
    group_by: z
      .string()
      .max(MAX_GROUP_BY_CHARS)
      .regex(/^[a-z_, ]*$/, "Dimension names separated by commas.")
      .optional()
      .openapi({
        description: `Comma-separated, any of: ${dimensions.join(", ")}; by default \`day\`. Empty: one row of totals.`,
        example: "day,model",
      }),
  });
}

const CountFields = {
  runs: z.number().int().openapi({ description: "Runs started." }),
  steps: z.number().int().openapi({ description: "Model calls that answered." }),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_read_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  cost_usd: z.number().nullable().openapi({
    description: "USD at `MODEL_PRICES` (over the built-in prices); null when some of the tokens are of a model without a price.",
  }),
};

export const UsageCountsSchema = z.object(CountFields).openapi("UsageCounts");

const dimension = (description: string) => z.string().nullable().optional().openapi({ description });

export const UsageRowSchema = z
  .object({
    tenant_id: dimension("Grouped by `tenant` (admin only)."),
    day: dimension("Grouped by `day`: the UTC day."),
    model: dimension("Grouped by `model`: the session's model, `provider:name`; null for usage counted before models were recorded."),
    api_key_id: dimension("Grouped by `api_key`: the key that created the session (a sub-agent: its parent's); null for a JWT."),
    created_by: dimension("Grouped by `created_by`: the session's creator."),
    agent_id: dimension("Grouped by `agent`: the agent the session runs; null for a session without one."),
    ...CountFields,
  })
  .openapi("UsageRow");

export const UsageReportSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    group_by: z.array(z.string()),
    data: z.array(UsageRowSchema),
    totals: UsageCountsSchema,
  })
  .openapi("UsageReport");

export interface UsageRange {
  from: string;
  to: string;
  groupBy: Dimension[];
}

/** Defaults filled and the range checked: `from` not after `to`, at most the days kept, known dimensions once each. */
export function usageRange(
  query: { from?: string; to?: string; group_by?: string },
  dimensions: readonly Dimension[],
  now: number,
): UsageRange {
  const to = query.to ?? utcDay(now);
  const from = query.from ?? utcDay(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_RANGE_DAYS - 1) * DAY_MS);
  const problems: { path: string; message: string }[] = [];
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  // A `to` in the first days of year 0 puts the default `from` before it, where days have no YYYY-MM-DD.
  if (!DaySchema.safeParse(from).success) problems.push({ path: "query.to", message: "Too early for a range of days." });
  else if (days < 1) problems.push({ path: "query.from", message: "Must not be after to." });
  else if (days > USAGE_RETENTION_DAYS)
    problems.push({ path: "query.from", message: `The range is at most ${USAGE_RETENTION_DAYS} days.` });
  const names =
    query.group_by === undefined
      ? ["day"]
      : query.group_by
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== "");
  const unknown = names.filter((name) => !(dimensions as readonly string[]).includes(name));
  if (unknown.length > 0)
    problems.push({ path: "query.group_by", message: `Unknown: ${unknown.join(", ")}. Known: ${dimensions.join(", ")}.` });
  else if (new Set(names).size !== names.length) problems.push({ path: "query.group_by", message: "Each dimension once." });
  if (problems.length > 0) throw new ApiError("validation_failed", undefined, { errors: problems });
  return { from, to, groupBy: names as Dimension[] };
}
