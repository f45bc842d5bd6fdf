/**
 * A time limit as an abort signal whose timer is cleared as soon as the work ends, so no
 * timer is left pending after a call (a pending one keeps a Durable Object from hibernating,
 * which `AbortSignal.timeout` would do for its whole duration).
 */
export interface Deadline {
  signal: AbortSignal;
  clear(): void;
}

export function deadline(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`timed out after ${ms} ms`, "TimeoutError")), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
