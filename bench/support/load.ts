/**
 * A closed-loop load generator: `concurrency` workers each send the next request as soon as
 * the last one is answered, for a fixed time after a warm-up, recording every latency.
 */
import { performance } from "node:perf_hooks";

export interface LoadOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Sends one request and returns its status once the body is read. */
  send(): Promise<number>;
}

export interface LoadResult {
  /** Latencies of the requests sent inside the measured window, in ms. */
  latencies: number[];
  /** Answers received inside the measured window, per second. */
  requestsPerSecond: number;
  /** Answers other than 200, and requests that failed outright. */
  errors: number;
  /** Answers of 500 or more. */
  serverErrors: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const end = measureFrom + options.durationMs;
  const latencies: number[] = [];
  let answeredInWindow = 0;
  let errors = 0;
  let serverErrors = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      let status: number;
      try {
        status = await options.send();
      } catch {
        status = 0;
      }
      const answered = performance.now();
      if (answered >= measureFrom && answered <= end) answeredInWindow++;
      if (sent < measureFrom) continue;
      latencies.push(answered - sent);
      if (status !== 200) errors++;
      if (status >= 500) serverErrors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { latencies, requestsPerSecond: (answeredInWindow * 1000) / options.durationMs, errors, serverErrors };
}
