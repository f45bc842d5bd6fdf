/**
 * `npm run bench -- bench/work-bounds.ts`: how long the bounds on tenant-supplied validation work
 * take to stop each hostile case, in this process (Node, the same validator code the Worker runs).
 * The tests hold to what each bound decides (a refusal, a count); the time it takes to decide is
 * measured here, where a busy machine shows as a figure instead of a failed test. Each case runs
 * five times; the median and the worst are printed against the target, and the process exits 1
 * when a median misses its target.
 */
import { loadavg } from "node:os";
import { checkSchema, validateJson } from "../src/shared/json-schema/validator";
import { doublingChain } from "../test/support/hostile-schemas";

interface Case {
  name: string;
  targetMs: number;
  run: () => unknown;
}

const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i }));
const CASES: Case[] = [
  { name: "doubling $defs chain of 24, refused by the complexity check", targetMs: 100, run: () => checkSchema(doublingChain(24)) },
  {
    name: "uniqueItems over 20,000 objects, stopped by the work budget",
    targetMs: 1_000,
    run: () => validateJson({ type: "array", uniqueItems: true }, items),
  },
  {
    name: "allOf of 899 subschemas over 100,000 elements",
    targetMs: 1_000,
    run: () =>
      validateJson(
        { type: "array", items: { allOf: Array.from({ length: 899 }, (_, i) => ({ type: "number", minimum: -i })) } },
        Array(100_000).fill(1),
      ),
  },
  {
    name: "allOf of 998 `true` over 100,000 elements",
    targetMs: 1_000,
    run: () => validateJson({ type: "array", items: { allOf: Array(998).fill(true) } }, Array(100_000).fill(1)),
  },
  {
    name: "enum of 100,000 values over 100,000 elements",
    targetMs: 1_000,
    run: () => validateJson({ type: "array", items: { enum: Array.from({ length: 100_000 }, (_, i) => i + 1) } }, Array(100_000).fill(0)),
  },
  {
    name: "999 minLength checks of a 2,000,000-character string",
    targetMs: 1_000,
    run: () => validateJson({ type: "array", items: { allOf: Array(999).fill({ minLength: 1 }) } }, ["x".repeat(2_000_000)]),
  },
  {
    name: "30,000 errors reported",
    targetMs: 1_000,
    run: () => validateJson({ type: "array", items: { type: "string" } }, Array(30_000).fill(1)),
  },
];

const REPS = 5;
let missed = 0;
console.log(`1-minute load average ${loadavg()[0]!.toFixed(2)} at the start`);
console.log("| case | median ms | worst ms | target ms | met |\n|---|---|---|---|---|");
for (const c of CASES) {
  const times: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const started = performance.now();
    c.run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(REPS / 2)]!;
  const met = median < c.targetMs;
  if (!met) missed += 1;
  console.log(`| ${c.name} | ${median.toFixed(1)} | ${times.at(-1)!.toFixed(1)} | ${c.targetMs} | ${met ? "yes" : "no"} |`);
}
process.exit(missed === 0 ? 0 : 1);
