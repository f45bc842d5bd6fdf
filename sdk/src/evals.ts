/**
 * Evals: `evals.run` starts an eval and waits for its end, reporting progress, so a CI job can
 * gate a deploy on its scores; `evals.compare` lists what a new version regressed.
 */
import type { PlatformClient } from "./client.ts";
import { expectData } from "./errors.ts";
import type { CreateEvalRequest, Eval, EvalComparison } from "./types.ts";
import { sleep } from "./wait.ts";

export interface RunEvalOptions {
  /** Called after each read while the eval runs, and once at its end. */
  onProgress?: (progress: Eval["progress"], evaluation: Eval) => void;
  /** Give up after this long (an `EvalTimeoutError`; the eval goes on); default 30 minutes. */
  timeoutMs?: number;
  /** Between reads; default 2 s. */
  intervalMs?: number;
  /** Aborting stops the wait, not the eval (cancel it with `evals.cancel`). */
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 30 * 60_000;
const DEFAULT_INTERVAL_MS = 2_000;

export class EvalTimeoutError extends Error {
  override name = "EvalTimeoutError";
  /** The eval as last read. */
  readonly last: Eval;

  constructor(last: Eval) {
    super(`eval ${last.id} is still ${last.status} (${last.progress.finished}/${last.progress.total} items)`);
    this.last = last;
  }
}

/**
 * Starts the eval and resolves with it once it ended (`completed`, `cancelled` or `failed`):
 * `scores` holds each scorer's mean, `items` each item's session and scores.
 *
 *     const result = await evals.run(client, { agent: "agt_…@4", dataset_id: "dst_…", scorers: [{ type: "contains" }] });
 *     if ((result.scores.contains ?? 0) < 0.9) process.exit(1);
 */
async function run(client: PlatformClient, body: CreateEvalRequest, options: RunEvalOptions = {}): Promise<Eval> {
  const started = await expectData(client.POST("/v1/evals", { body, signal: options.signal }));
  return wait(client, started.id, options);
}

/** Waits for an eval already started. */
async function wait(client: PlatformClient, evalId: string, options: RunEvalOptions = {}): Promise<Eval> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  for (;;) {
    options.signal?.throwIfAborted();
    const found = await expectData(client.GET("/v1/evals/{id}", { params: { path: { id: evalId } }, signal: options.signal }));
    options.onProgress?.(found.progress, found);
    // A cancelled eval's last sessions are still being cancelled: its items are final once none runs.
    if (found.status !== "running" && found.progress.running === 0) return found;
    if (Date.now() > deadline) throw new EvalTimeoutError(found);
    await sleep(options.intervalMs ?? DEFAULT_INTERVAL_MS, options.signal);
  }
}

/** `b` against `a`, item by item: `regressions` are the items some scorer scored lower in `b`. */
function compare(client: PlatformClient, a: string, b: string): Promise<EvalComparison> {
  return expectData(client.GET("/v1/evals/compare", { params: { query: { a, b } } }));
}

function cancel(client: PlatformClient, evalId: string): Promise<Eval> {
  return expectData(client.POST("/v1/evals/{id}/cancel", { params: { path: { id: evalId } } }));
}

export const evals = { run, wait, compare, cancel } as const;
