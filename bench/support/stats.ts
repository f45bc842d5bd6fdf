/** Percentiles, medians and spreads, and how the tables print them. */

/** The q-quantile (0..1) of `values` by linear interpolation; NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** How many repetitions it summarises. */
  n: number;
}

/** One figure per repetition, summarised as the median and the range. */
export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

/** `12.3 (11.8–13.0)`: the median of the repetitions and their range. */
export function fmtSpread(s: Spread, digits = 1): string {
  if (Number.isNaN(s.median)) return "n/a";
  if (s.n < 2) return fmt(s.median, digits);
  return `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

export function fmt(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return "n/a";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `1.8×`, from two medians. */
export function ratio(a: number, b: number): string {
  return Number.isFinite(a / b) ? `${fmt(a / b, 2)}×` : "n/a";
}

/**
 * `1.8× (1.6–2.1)`: the ratios of runs made side by side (the i-th of `a` with the i-th of `b`),
 * their median and range. Pairing cancels most of a drift in the machine's load.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): string {
  const ratios = a.map((x, i) => x / b[i]!).filter(Number.isFinite);
  if (ratios.length === 0) return "n/a";
  const s = spread(ratios);
  return s.n < 2 ? `${fmt(s.median, 2)}×` : `${fmt(s.median, 2)}× (${fmt(s.min, 2)}–${fmt(s.max, 2)})`;
}
