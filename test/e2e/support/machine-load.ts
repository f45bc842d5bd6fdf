/**
 * How busy the machine is, measured in the run that needs it. A bound on a duration in these
 * tests is stated for an idle machine and stretched by this factor: on two cores shared with
 * other suites (or `stress-ng`) the platform's thread gets a fraction of a core and everything
 * takes longer, while a regression (a tenant's work holding the thread for seconds) still fails.
 */

/** CPU time of one probe: many scheduler slices, yet nothing beside a test's own work. */
const PROBE_CPU_MS = 30;
/** Probes per measure; the largest counts, since a bound must hold through the busiest moment seen. */
const PROBES = 3;
/**
 * The most a bound is stretched: past eight times its idle length the machine is too busy for
 * a timing to say anything, and a stall of tens of seconds must still fail.
 */
export const MAX_LOAD_FACTOR = 8;

/**
 * Wall time over CPU time of a fixed piece of busy work in this process, now: 1 with a core to
 * itself, 2 when it gets half of one. The platform's thread shares the same cores.
 */
export function loadFactor(probes = PROBES): number {
  let worst = 1;
  for (let n = 0; n < probes; n++) {
    const wallStart = performance.now();
    const cpuStart = process.cpuUsage();
    let cpuMs = 0;
    let sink = 0;
    while (cpuMs < PROBE_CPU_MS) {
      for (let i = 0; i < 20_000; i++) sink += Math.sqrt(i);
      const used = process.cpuUsage(cpuStart);
      cpuMs = (used.user + used.system) / 1000;
    }
    // `sink` is read so the loop is not optimised away.
    if (Number.isNaN(sink)) throw new Error("unreachable");
    worst = Math.max(worst, (performance.now() - wallStart) / cpuMs);
  }
  return Math.min(worst, MAX_LOAD_FACTOR);
}

/** `idleMs`, a bound stated for an idle machine, at `factor` (from `loadFactor`). */
export function underLoad(idleMs: number, factor: number): number {
  return idleMs * Math.min(Math.max(factor, 1), MAX_LOAD_FACTOR);
}
