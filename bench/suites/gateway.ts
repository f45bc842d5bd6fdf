/**
 * Gateway cost: an authenticated `GET /v1/sessions/{id}` (with a JWT, and with an API key)
 * against the same session object read with no gateway in front (`bench/direct/`), at several
 * concurrencies, several times each, variants interleaved.
 */
import { uniqueName } from "../../test/e2e/support/stack";
import { runLoad } from "../support/load";
import { load1 } from "../support/machine";
import type { Table } from "../support/report";
import { fmt, fmtSpread, quantile, spread } from "../support/stats";
import type { World } from "../world";

export const CONCURRENCIES = [1, 16, 64] as const;
const VARIANTS = ["no gateway", "JWT", "API key"] as const;
type Variant = (typeof VARIANTS)[number];
const WARMUP_MS = 300;
const WINDOW_MS = 2_000;

interface Figures {
  p50: number;
  p95: number;
  p99: number;
  rps: number;
  errors: number;
  load: number;
}

export type GatewayResult = Record<string, Figures[]>;
const keyOf = (concurrency: number, variant: Variant) => `${concurrency}:${variant}`;

export async function measureGateway(world: World, reps: number): Promise<GatewayResult> {
  const tenant = uniqueName("bench-gw");
  const jwt = await world.token(tenant, ["sessions:read", "sessions:write", "tenant:admin"]);
  const admin = await world.client(tenant, ["sessions:read", "sessions:write", "tenant:admin"]);
  const session = await admin.expect<{ id: string }>(201, "POST", "/v1/sessions", {});
  const key = await admin.expect<{ key: string }>(201, "POST", "/v1/api-keys", {
    name: "bench",
    scopes: ["sessions:read", "tenant:admin"],
  });
  const base = world.platform.url;
  const requests: Record<Variant, () => Promise<number>> = {
    "no gateway": () => get(`${base}/__bench/agents/${tenant}/${session.id}`, null),
    JWT: () => get(`${base}/v1/sessions/${session.id}`, jwt),
    "API key": () => get(`${base}/v1/sessions/${session.id}`, key.key),
  };
  const result: GatewayResult = {};
  for (let rep = 0; rep < reps; rep++) {
    for (const concurrency of CONCURRENCIES) {
      // Rotated per repetition, so none always runs first or last.
      const order = VARIANTS.map((_, i) => VARIANTS[(i + rep) % VARIANTS.length]!);
      for (const variant of order) {
        const load = load1();
        const run = await runLoad({ concurrency, warmupMs: WARMUP_MS, durationMs: WINDOW_MS, send: requests[variant] });
        const figures = {
          p50: quantile(run.latencies, 0.5),
          p95: quantile(run.latencies, 0.95),
          p99: quantile(run.latencies, 0.99),
          rps: run.requestsPerSecond,
          errors: run.errors,
          load,
        };
        (result[keyOf(concurrency, variant)] ??= []).push(figures);
      }
    }
    console.log(`  gateway ${rep + 1}/${reps}`);
  }
  return result;
}

async function get(url: string, credential: string | null): Promise<number> {
  const res = await fetch(url, { headers: credential ? { authorization: `Bearer ${credential}` } : {} });
  await res.arrayBuffer();
  return res.status;
}

export function gatewayTable(result: GatewayResult): Table {
  const rows: string[][] = [];
  for (const concurrency of CONCURRENCIES) {
    const direct = result[keyOf(concurrency, "no gateway")]!.map((f) => f.p50);
    for (const variant of VARIANTS) {
      const runs = result[keyOf(concurrency, variant)]!;
      // Window by window: each gateway window against the direct window of the same repetition.
      const added = spread(runs.map((f, i) => f.p50 - direct[i]!));
      rows.push([
        String(concurrency),
        variant,
        fmtSpread(spread(runs.map((f) => f.p50)), 2),
        fmtSpread(spread(runs.map((f) => f.p95)), 2),
        fmtSpread(spread(runs.map((f) => f.p99)), 2),
        fmtSpread(spread(runs.map((f) => f.rps)), 0),
        variant === "no gateway" ? "—" : fmtSpread(added, 2),
        String(runs.reduce((sum, f) => sum + f.errors, 0)),
      ]);
    }
  }
  const loads = Object.values(result)
    .flat()
    .map((f) => f.load);
  const reps = Object.values(result)[0]?.length ?? 0;
  return {
    title: "Gateway: `GET /v1/sessions/{id}` against the same session object read with no gateway",
    columns: ["concurrency", "path", "p50 ms", "p95 ms", "p99 ms", "requests/s", "p50 added (ms)", "errors"],
    rows,
    notes: [
      `${reps} windows of ${WINDOW_MS / 1000} s per cell after ${WARMUP_MS} ms of warm-up, closed loop (each client sends its next request when the last is answered); median of the windows with their range. "p50 added" compares each window with the direct window of the same repetition.`,
      "\"no gateway\": a route of the benchmarks' build of the Worker that calls the session object's `get()` directly, in the same process; JWT: a platform-signed token; API key: `ak_…` with `sessions:read tenant:admin`.",
      "The client is Node's fetch on the same 2 cores, so at concurrency 64 the figures measure the machine as much as the platform.",
      `1-minute load average during the windows: ${fmt(Math.min(...loads), 2)}–${fmt(Math.max(...loads), 2)}.`,
    ],
  };
}
