/**
 * Clean-up that must happen however this process ends: on a normal exit, and on a signal
 * (Ctrl-C, or the test runner ending its workers), where no "exit" event would come and
 * `process.exit` may be intercepted by the runner. Every step is synchronous.
 */

/** Processes are stopped before files are removed, whatever order the modules loaded in. */
export type Phase = "stop-processes" | "remove-files";
const PHASES: readonly Phase[] = ["stop-processes", "remove-files"];

const steps: { phase: Phase; step: () => void }[] = [];
let installed = false;
let ran = false;

function runAll(): void {
  if (ran) return;
  ran = true;
  for (const phase of PHASES) {
    for (const entry of steps) {
      if (entry.phase !== phase) continue;
      try {
        entry.step();
      } catch {
        // One failed step must not keep the others from running.
      }
    }
  }
}

/** Adds a synchronous step to its phase. */
export function atLastResort(phase: Phase, step: () => void): void {
  steps.push({ phase, step });
  if (installed) return;
  installed = true;
  process.once("exit", runAll);
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.once(signal, () => {
      runAll();
      process.exitCode = code;
      try {
        process.exit(code);
      } catch {
        // The runner may forbid exiting; it ends this worker itself.
      }
    });
  }
}

/** Blocks the thread; only for the last moments of a process, where nothing else may run. */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
