/**
 * A tenant's limit overrides as the limits form shows them: one text field per limit, empty for
 * the platform default, "unlimited" for no daily token cap. Pure.
 */
import { LIMIT_LABELS } from "./format";
import type { LimitOverrides, Limits } from "./types";

type Name = keyof Limits;
export const LIMIT_NAMES = Object.keys(LIMIT_LABELS) as Name[];
/** The least value of each limit; 1 unless named here (no schedules at all is a setting; an image limit under 1 KiB is refused by the API). */
const LEAST: Partial<Record<Name, number>> = {
  max_schedules: 0,
  max_image_bytes: 1024,
  max_cost_usd_per_day: 0,
  max_tokens_per_day_per_subject: 0,
};
/** The daily budgets: "unlimited" is null. */
const NULLABLE: readonly Name[] = ["max_tokens_per_day", "max_cost_usd_per_day", "max_tokens_per_day_per_subject"];
/** Entered as this word, `max_tokens_per_day` is unlimited (null). */
export const UNLIMITED = "unlimited";

/** Pure: the form's text per limit, from the overrides. */
export function overridesToFields(overrides: LimitOverrides): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of LIMIT_NAMES) {
    const value = overrides[name];
    fields[name] = value === undefined ? "" : value === null ? UNLIMITED : String(value);
  }
  return fields;
}

/** Pure: the overrides the fields say, or the first field that is not a whole number. */
export function fieldsToOverrides(
  fields: Record<string, string>,
): { ok: true; overrides: LimitOverrides } | { ok: false; field: string; message: string } {
  const overrides: Record<string, number | null> = {};
  for (const name of LIMIT_NAMES) {
    const text = (fields[name] ?? "").trim().replace(/[,_\s]/g, "");
    if (text === "") continue;
    if (NULLABLE.includes(name) && text.toLowerCase() === UNLIMITED) {
      overrides[name] = null;
      continue;
    }
    const least = LEAST[name] ?? 1;
    // Dollars may have cents; every other limit is a count.
    const pattern = name === "max_cost_usd_per_day" ? /^\d+(\.\d+)?$/ : /^\d+$/;
    if (!pattern.test(text) || Number(text) < least || !Number.isSafeInteger(Math.floor(Number(text)))) {
      return {
        ok: false,
        field: name,
        message: `${LIMIT_LABELS[name]}: a ${name === "max_cost_usd_per_day" ? "number" : "whole number"} of at least ${least}${NULLABLE.includes(name) ? `, or "${UNLIMITED}"` : ""}, or empty for the default.`,
      };
    }
    overrides[name] = Number(text);
  }
  return { ok: true, overrides: overrides as LimitOverrides };
}
