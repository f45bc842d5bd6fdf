/**
 * What the benchmarks ran on and what else ran beside them: cores, memory, versions, load
 * average; and the memory, CPU time and storage of the workerd processes of a `wrangler dev`
 * (the runtime and wrangler's proxy in front of it; wrangler's own Node process and its
 * esbuild watcher are left out, since they serve the developer, not the Worker).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { PROJECT_ROOT } from "../../test/e2e/support/environment";
import { groupMembers } from "../../test/e2e/support/process-group";

/** Linux reports process CPU time in clock ticks of 1/100 s (USER_HZ) on every common build. */
const TICKS_PER_SECOND = 100;
const PAGE_BYTES = 4096;

export interface Machine {
  cores: number;
  cpu: string;
  memoryGiB: number;
  node: string;
  wrangler: string;
  workerd: string;
}

export function describeMachine(): Machine {
  const wrangler = JSON.parse(readFileSync(join(PROJECT_ROOT, "node_modules", "wrangler", "package.json"), "utf8")) as { version: string };
  const workerd = execFileSync(join(PROJECT_ROOT, "node_modules", ".bin", "workerd"), ["--version"], { encoding: "utf8" }).trim();
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    wrangler: wrangler.version,
    workerd: workerd.replace(/^workerd\s+/, ""),
  };
}

/** The 1-minute load average, the figure to read beside a run: above the core count, others were busy. */
export function load1(): number {
  return loadavg()[0] ?? 0;
}

function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null; // exited meanwhile
  }
}

/** The live workerd processes of a `wrangler dev` process group. */
export function workerdPids(pgid: number): number[] {
  return groupMembers(pgid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd";
    } catch {
      return false;
    }
  });
}

/** Resident memory of the group's workerd processes, in bytes. */
export function workerdRss(pgid: number): number {
  let pages = 0;
  for (const pid of workerdPids(pgid)) pages += Number(procStat(pid)?.[21] ?? 0);
  return pages * PAGE_BYTES;
}

/** User plus system CPU time the group's workerd processes have used so far, in ms. */
export function workerdCpuMs(pgid: number): number {
  let ticks = 0;
  for (const pid of workerdPids(pgid)) {
    const fields = procStat(pid);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/**
 * What the SQLite databases under `dir` hold: pages in use times the page size, as SQLite itself
 * reports them (its write-ahead log included), summed over every Durable Object's database. The
 * size of the files would count logs that were written and not yet folded back in, and shrink
 * when they are, which says more about timing than about what is kept.
 */
export function sqliteBytes(dir: string): number {
  let total = 0;
  eachDatabase(dir, (db) => {
    const pragma = (name: string) => Number(Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0] ?? 0);
    total += (pragma("page_count") - pragma("freelist_count")) * pragma("page_size");
  });
  return total;
}

/** A table's or index's share of a database: its pages in use, and their bytes. */
export interface TableSpace {
  pages: number;
  bytes: number;
}

/**
 * The pages in use of each table and index (SQLite's `dbstat`), with their bytes, summed over the
 * objects of each Durable Object class under `dir`: keyed `class` → `table`. What `sqliteBytes`
 * counts, told apart.
 */
export function sqlitePagesByTable(dir: string): Map<string, Map<string, TableSpace>> {
  const out = new Map<string, Map<string, TableSpace>>();
  eachDatabase(dir, (db, className) => {
    const tables = out.get(className) ?? new Map<string, TableSpace>();
    out.set(className, tables);
    for (const row of db.prepare("SELECT name, count(*) AS pages, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as {
      name: string;
      pages: number;
      bytes: number;
    }[]) {
      const known = tables.get(row.name) ?? { pages: 0, bytes: 0 };
      tables.set(row.name, { pages: known.pages + Number(row.pages), bytes: known.bytes + Number(row.bytes) });
    }
  });
  return out;
}

/** An object busy writing holds its database locked for a moment; a reader waits that long. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens every Durable Object database under `dir` read-only, in turn, for `read`; its class is
 * the last part of the object's directory name.
 */
function eachDatabase(dir: string, read: (db: DatabaseSync, className: string) => void): void {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".sqlite")) continue;
    const db = new DatabaseSync(join(entry.parentPath, entry.name), { readOnly: true, timeout: BUSY_TIMEOUT_MS });
    try {
      read(db, entry.parentPath.split("/").at(-1)!.split("-").at(-1)!);
    } finally {
      db.close();
    }
  }
}

/** Samples the workerd processes' RSS every `intervalMs` until stopped; returns the peak. */
export function rssPeakSampler(pgid: number, intervalMs = 250): { stop(): number } {
  let peak = workerdRss(pgid);
  const timer = setInterval(() => (peak = Math.max(peak, workerdRss(pgid))), intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, workerdRss(pgid));
    },
  };
}
