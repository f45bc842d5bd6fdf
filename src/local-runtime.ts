/**
 * Whether the platform runs under a local runtime, and what follows from it. The deployed
 * `run_code` mode is kept off local runtimes: a Dynamic Worker's CPU limit is enforced by
 * Cloudflare's runtime only, and under `wrangler dev` one `while (true) {}` in a child stalls the
 * local runtime for good (docs/tools.md). No client address header is trusted by default there
 * (config.ts). `loadConfig` asks here, so no path runs without it.
 */

/**
 * Clock reads the probe makes at most. Locally the clock ticks every millisecond, within about
 * 12,000 reads on a 2-core development machine; deployed, the loop runs to the end, a few
 * milliseconds of CPU once per isolate, and only where `dynamic_worker` is configured or
 * `TRUSTED_CLIENT_IP_HEADER` is left to its default.
 */
export const CLOCK_PROBE_READS = 50_000;

/**
 * Whether this runtime is a local one. Deployed, `performance.now()` and `Date.now()` advance only
 * after I/O (Cloudflare's Spectre mitigation); a local runtime's clock moves while code runs
 * ("Performance and timers" in the Workers docs). `now` is passed in so tests can freeze it.
 */
export function clockMovesWhileCodeRuns(now: () => number = () => performance.now(), reads = CLOCK_PROBE_READS): boolean {
  const start = now();
  for (let i = 0; i < reads; i++) if (now() !== start) return true;
  return false;
}

let probed: boolean | undefined;

/** Whether this isolate runs under a local runtime: the probe above, run once per isolate. */
export function runsLocally(): boolean {
  return (probed ??= clockMovesWhileCodeRuns());
}

/**
 * Why this configuration must not start here, or null: `dynamic_worker` under a local runtime,
 * unless `ALLOW_LOCAL_DYNAMIC_WORKER` is `true` (the end-to-end test of the deployed path, which
 * runs no code that spins).
 */
export function localDynamicWorkerRefusal(
  runCodeIsolate: string,
  env: { ALLOW_LOCAL_DYNAMIC_WORKER?: string },
  isLocal: () => boolean = runsLocally,
): string | null {
  if (runCodeIsolate !== "dynamic_worker" || env.ALLOW_LOCAL_DYNAMIC_WORKER === "true" || !isLocal()) return null;
  return (
    'RUN_CODE_ISOLATE "dynamic_worker" is the deployed mode: this local runtime enforces no CPU limit on a Dynamic Worker, ' +
    "and one endless loop in run_code would stall it for good. Run the platform locally with `npm run dev` or `npm start` " +
    "(or `wrangler dev --var RUN_CODE_ISOLATE:interpreter`)."
  );
}
