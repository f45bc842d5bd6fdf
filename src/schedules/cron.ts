/**
 * Cron expressions and time zones of schedules, on `croner` (no `eval`, no dependencies, IANA
 * zones through `Intl`). Five fields, or six with a leading seconds field; names (`MON`, `JAN`)
 * and nicknames (`@hourly`) as croner reads them; day of month and day of week are OR-ed, as in
 * Vixie cron. Pure: the reference time is always passed in.
 */
import { Cron } from "croner";

export const DEFAULT_TIME_ZONE = "UTC";
export const MAX_CRON_CHARS = 256;
export const MAX_TIME_ZONE_CHARS = 64;

export type CronCheck = { ok: true; timezone: string } | { ok: false; field: "cron" | "timezone"; message: string };

/**
 * Whether `cron` can run in `timezone` from `now` on: a known zone (returned in its canonical
 * spelling: `utc` is `UTC`), a pattern croner reads, and at least one time it matches.
 */
export function checkCron(cron: string, timezone: string, now: number): CronCheck {
  const zone = canonicalTimeZone(timezone);
  if (zone === null) return { ok: false, field: "timezone", message: "Not a time zone; use an IANA name such as Europe/Paris or UTC." };
  let job: Cron;
  try {
    job = parse(cron, zone);
  } catch (error) {
    return { ok: false, field: "cron", message: patternProblem(error) };
  }
  if (job.nextRun(new Date(now)) === null) return { ok: false, field: "cron", message: "Never matches a future time." };
  return { ok: true, timezone: zone };
}

/** The first time `cron` matches strictly after `after` (ms), in whole seconds; null when there is none. */
export function nextSlot(cron: string, timezone: string, after: number): number | null {
  return parse(cron, timezone).nextRun(new Date(after))?.getTime() ?? null;
}

/** The zone's canonical name, or null when `Intl` does not know it. */
export function canonicalTimeZone(timezone: string): string | null {
  if (timezone.length === 0 || timezone.length > MAX_TIME_ZONE_CHARS) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function parse(cron: string, timezone: string): Cron {
  if (cron.length > MAX_CRON_CHARS) throw new RangeError(`longer than ${MAX_CRON_CHARS} characters`);
  // Without a function to run, croner only computes times: it sets no timer.
  return new Cron(cron, { timezone, mode: "5-or-6-parts", paused: true });
}

/** Croner's message without its class prefix ("CronPattern: Invalid value for minute: 61"). */
function patternProblem(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const plain = text.replace(/^Cron\w*:\s*/, "");
  return `Not a cron expression (5 fields, or 6 with leading seconds): ${plain}`;
}
