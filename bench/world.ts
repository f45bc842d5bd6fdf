/**
 * What every benchmark runs against: the mock model, the platform (its benchmark build, see
 * `bench/direct/`) and the bare loops (`bench/baseline/`, one process), each a real `wrangler dev` on
 * temporary storage, all started from the end-to-end suite's own pieces.
 */
import { join } from "node:path";
import type { PartialLimits } from "../src/limits";
import { ApiClient } from "../test/e2e/support/api-client";
import { PROJECT_ROOT } from "../test/e2e/support/environment";
import { MockServer } from "../test/e2e/support/mock-process";
import { Platform } from "../test/e2e/support/platform";
import { type Scope, tokenMinter } from "../test/e2e/support/tokens";
import { waitFor } from "../test/e2e/support/wait";

/**
 * Limits out of the way: the benchmarks measure the loop, not the limits, and the growth run
 * needs 300 steps in one run. Raised through `DEFAULT_LIMITS`, as an operator would.
 */
export const BENCH_LIMITS: PartialLimits = {
  max_steps_per_run: 1000,
  max_tokens_per_session: 100_000_000,
  max_concurrent_runs: 100_000,
  requests_per_minute: 1_000_000_000,
  // The memory suite writes past the default 100,000 items (its highest size, plus its puts).
  max_memory_items: 10_000_000,
  // 100,000 items of the corpus take about 100 MB; the bytes limit is not what this suite measures.
  max_memory_bytes: 5 * 1024 * 1024 * 1024,
};
/** The subject of the benchmarks' tokens unless one is named. */
export const BENCH_SUBJECT = "bench-user";
/** As long as the end-to-end API client waits for an answer. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Status polls while a run goes; rare enough not to disturb what is measured. */
const POLL_MS = 250;

export type BaselineStatus = "running" | "done" | "failed";

export interface World {
  mock: MockServer;
  platform: Platform;
  baseline: Platform;
  /** A platform JWT for `subject` of `tenantId`. */
  token(tenantId: string, scopes?: Scope[], subject?: string): Promise<string>;
  /** A client of the platform with such a token. */
  client(tenantId: string, scopes?: Scope[], subject?: string): Promise<ApiClient>;
  /** Starts a run of the bare loop, or of the one that streams its model answers; returns its id. */
  startBaseline(model: string, input: string, stream?: boolean): Promise<string>;
  baselineStatuses(ids: readonly string[]): Promise<Record<string, BaselineStatus | null>>;
  /** For a bare-loop run found stalled: its state and alarm as stored, and the alarm set again. */
  reviveBaseline(id: string): Promise<unknown>;
  dispose(): Promise<void>;
}

export interface WorldOptions {
  /**
   * wrangler dev's local trace store (on by default in wrangler, `X_LOCAL_OBSERVABILITY`): every
   * invocation of every Worker and object is traced into a SQLite store inside the runtime. It
   * has no counterpart in production and costs most for the platform, which makes more
   * invocations per unit, so the benchmarks turn it off unless asked.
   */
  localObservability?: boolean;
  /** The builds' cost meter (`bench/direct/cost-meter.ts`); on unless asked, off only to see what it costs. */
  meter?: boolean;
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const mock = await MockServer.start();
  const started: Platform[] = [];
  const env = { X_LOCAL_OBSERVABILITY: String(options.localObservability ?? false) };
  const meterVars: Record<string, string> = options.meter === false ? { BENCH_METER: "off" } : {};
  try {
    const platform = await Platform.create({
      modelUrl: mock.url,
      vars: { DEFAULT_LIMITS: JSON.stringify(BENCH_LIMITS), ...meterVars },
      main: join(PROJECT_ROOT, "bench", "direct", "worker.ts"),
      env,
    });
    started.push(platform);
    const baseline = await Platform.create({
      modelUrl: mock.url,
      config: join(PROJECT_ROOT, "bench", "baseline", "wrangler.json"),
      env,
      vars: meterVars,
    });
    started.push(baseline);
    // One after the other: two cold starts at once would only slow each other down.
    await platform.start();
    await baseline.start();
    const mint = await tokenMinter(platform.signingKey);
    const token = (tenantId: string, scopes: Scope[] = ["sessions:read", "sessions:write"], subject = BENCH_SUBJECT) =>
      mint({ tenantId, subject, scopes });
    return {
      mock,
      platform,
      baseline,
      token,
      async client(tenantId, scopes, subject) {
        return new ApiClient(() => platform.url, await token(tenantId, scopes, subject));
      },
      async startBaseline(model, input, stream = false) {
        const res = await fetch(`${baseline.url}/runs`, {
          method: "POST",
          body: JSON.stringify({ model, input, stream }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        if (res.status !== 201) throw new Error(`bare loop: POST /runs answered ${res.status}: ${await res.text()}`);
        return ((await res.json()) as { id: string }).id;
      },
      async baselineStatuses(ids) {
        const res = await fetch(`${baseline.url}/runs/status`, {
          method: "POST",
          body: JSON.stringify({ ids }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        if (!res.ok) throw new Error(`bare loop: POST /runs/status answered ${res.status}`);
        return (await res.json()) as Record<string, BaselineStatus | null>;
      },
      async reviveBaseline(id) {
        const res = await fetch(`${baseline.url}/runs/${id}/revive`, { method: "POST", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        if (!res.ok) throw new Error(`bare loop: POST /runs/${id}/revive answered ${res.status}`);
        return res.json();
      },
      async dispose() {
        for (const p of started) await p.dispose();
        await mock.stop();
      },
    };
  } catch (error) {
    for (const p of started) await p.dispose();
    await mock.stop();
    throw error;
  }
}

/**
 * Polls until `done` holds, or fails after `timeoutMs` naming `what`. A probe that throws is
 * tried again (the end-to-end suite's `waitFor`): on two loaded cores a kept-alive connection
 * is sometimes closed by the server just as the client reuses it.
 */
export async function pollUntil(done: () => Promise<boolean>, timeoutMs: number, what: string, intervalMs = POLL_MS): Promise<void> {
  await waitFor(async () => ((await done()) ? true : undefined), { timeoutMs, intervalMs, what });
}

/** How often a request lost to a closed connection is sent again. */
const SOCKET_RETRIES = 2;

/**
 * Sends again a request whose connection closed before any answer (fetch's "other side closed"
 * on a kept-alive socket the server had just dropped); any other failure is thrown at once.
 */
export async function retryClosedConnection<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (code !== "UND_ERR_SOCKET" || attempt >= SOCKET_RETRIES) throw error;
    }
  }
}
