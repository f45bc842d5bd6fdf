/**
 * A seeded random source, so a chaos run that fails can be replayed: the seed is printed and
 * read back from `E2E_SEED`.
 */

export interface Random {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  between(min: number, max: number): number;
}

/** mulberry32: tiny, fast, and good enough to spread kill times. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { seed, next, between: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}

export function seedFromEnv(): number {
  const fromEnv = Number(process.env.E2E_SEED);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : Math.floor(Math.random() * 2 ** 31) + 1;
}
