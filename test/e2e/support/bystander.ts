/**
 * The other tenant of an attack test: it asks for its tenant record, one request after another,
 * for as long as the attack runs, and every answer must come within a second of what it takes
 * alone, that second stretched by the machine's load (`machine-load.ts`), both measured in the run.
 */
import { expect } from "vitest";
import type { ApiClient } from "./api-client";
import { loadFactor, underLoad } from "./machine-load";

/** On an idle machine; `underLoad` stretches it on a busy one. */
export const MAX_OTHER_TENANT_LATENCY_MS = 1_000;

/** The bystander's latencies (ms) while `work` runs; a request that fails counts as never answered. */
export async function timedWhile(bystander: ApiClient, work: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let over = false;
  const asking = (async () => {
    while (!over) {
      const started = performance.now();
      // A request that times out counts with the time it waited, as a failure to answer.
      const res = await bystander.request("GET", "/v1/tenant").catch(() => null);
      latencies.push(res?.status === 200 ? performance.now() - started : Number.POSITIVE_INFINITY);
    }
  })();
  try {
    await work();
  } finally {
    over = true;
    await asking;
  }
  return latencies;
}

/** Several requests were answered, each within `MAX_OTHER_TENANT_LATENCY_MS` at the machine's load, measured now. */
export function expectPrompt(latencies: number[]): void {
  const load = loadFactor();
  const bound = underLoad(MAX_OTHER_TENANT_LATENCY_MS, load);
  console.log(
    `${latencies.length} requests of another tenant, slowest ${Math.max(...latencies).toFixed(0)} ms (bound ${bound.toFixed(0)} ms at load ${load.toFixed(1)})`,
  );
  expect(latencies.length).toBeGreaterThan(5);
  expect(Math.max(...latencies), `other tenant's latencies (ms): ${latencies.map((l) => l.toFixed(0)).join(", ")}`).toBeLessThan(bound);
}

/** How long the bystander is timed alone, before an attack, for its calibration. */
export const CALIBRATION_MS = 3_000;

/** What an attack is measured against: the bystander's latencies alone, and the machine's load then. */
export interface Calibration {
  latencies: number[];
  load: number;
}

/** The bystander's latencies with nothing else asked of the platform, and the machine's load. */
export async function calibrate(bystander: ApiClient, ms = CALIBRATION_MS): Promise<Calibration> {
  // The tenant's first request creates its records: not its pace.
  await bystander.request("GET", "/v1/tenant");
  const load = loadFactor();
  return { latencies: await timedWhile(bystander, () => new Promise((resolve) => setTimeout(resolve, ms))), load };
}

/** The 99th percentile (nearest rank) of some latencies. */
export function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.POSITIVE_INFINITY;
}

/**
 * The goal of the attack tests: the bystander's p99 during the attack is within
 * `MAX_OTHER_TENANT_LATENCY_MS` of its p99 alone, that second stretched by the machine's load
 * (the larger of before and after the attack), all measured in the same run on the same machine.
 */
export function expectWithinCalibration(latencies: number[], calibration: Calibration): void {
  const alone = p99(calibration.latencies);
  const attacked = p99(latencies);
  const load = Math.max(calibration.load, loadFactor());
  const bound = alone + underLoad(MAX_OTHER_TENANT_LATENCY_MS, load);
  console.log(
    `${latencies.length} requests of another tenant: p99 ${attacked.toFixed(0)} ms (alone ${alone.toFixed(0)} ms), slowest ${Math.max(...latencies).toFixed(0)} ms; bound ${bound.toFixed(0)} ms at load ${load.toFixed(1)}`,
  );
  expect(latencies.length).toBeGreaterThan(5);
  expect(attacked, `other tenant's latencies (ms): ${latencies.map((l) => l.toFixed(0)).join(", ")}`).toBeLessThan(bound);
}
