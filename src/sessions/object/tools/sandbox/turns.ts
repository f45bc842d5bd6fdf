/**
 * Interpreter runs take at most half of the isolate's time. A run holds the thread from start to
 * end (nothing can interrupt it to let a request through), and where every tenant's objects share
 * one thread (the local runtime, or objects placed together) runs of several sessions back to back
 * kept another tenant's requests waiting a run per hop. So a run starts only once as long as the
 * last one took has passed since it ended: whatever else waits gets the thread in between.
 *
 * Kept per isolate, in plain numbers: each object waits on its own timer, never on a promise of
 * another object's request. Where the clock stands still while code runs (deployed), a run takes
 * no time by the clock and nothing waits.
 */
let lastEnd = 0;
let lastTook = 0;

/** Waits until this isolate's last interpreter run has been followed by as long a gap. */
export async function awaitTurn(): Promise<void> {
  for (;;) {
    const wait = lastEnd + lastTook - Date.now();
    if (wait <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Notes a run's start and end (epoch ms). */
export function noteRun(startedAt: number, endedAt: number): void {
  lastEnd = endedAt;
  lastTook = Math.max(0, endedAt - startedAt);
}
