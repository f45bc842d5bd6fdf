/**
 * Storage system calls of the runtime while a run goes, traced with `strace` where it is
 * installed, each charged to the Durable Object class whose SQLite file it touched: every commit
 * of an object's database is page writes and an `fsync`, so the counts say how many storage
 * round trips a unit makes and which object makes them, which CPU profiles of JavaScript cannot.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** strace reports each process once it is attached; slower than this is a failure to attach. */
const ATTACH_TIMEOUT_MS = 10_000;
export const STORAGE_SYSCALLS = ["fsync", "fdatasync", "pwrite64", "pread64"] as const;

export function straceAvailable(): boolean {
  return spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0;
}

/**
 * Pure: calls by `syscall object-class`, from `strace -f -y` lines such as
 * `1234 fsync(23</state/v3/do/agent-platform-SessionObject/ab12.sqlite-wal>) = 0`. Local Durable Object
 * storage lives in one directory per class, named `<script>-<class>`; other files count as "other".
 */
export function parseStorageTrace(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\(\d+<([^>]*)>/.exec(line);
    if (!match) continue;
    const dir = /\/do\/([^/]+)\//.exec(match[2]!)?.[1];
    const owner = dir ? dir.slice(dir.lastIndexOf("-") + 1) : "other";
    const key = `${match[1]} ${owner}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Storage calls of `pids` (and their threads) while `work` runs, by `syscall object-class`. */
export async function traceStorage(pids: readonly number[], outDir: string, work: () => Promise<void>): Promise<Map<string, number>> {
  const out = join(outDir, `strace-${pids.join("-")}.txt`);
  const args = ["-f", "-y", "-e", `trace=${STORAGE_SYSCALLS.join(",")}`, "-o", out, ...pids.flatMap((pid) => ["-p", String(pid)])];
  const tracer = spawn("strace", args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`strace did not attach: ${stderr}`)), ATTACH_TIMEOUT_MS);
    tracer.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      if (pids.every((pid) => stderr.includes(`Process ${pid} attached`))) {
        clearTimeout(timer);
        resolve();
      }
    });
    tracer.once("exit", () => reject(new Error(`strace exited: ${stderr}`)));
  });
  try {
    await work();
  } finally {
    const exited = new Promise((resolve) => tracer.once("exit", resolve));
    tracer.kill("SIGINT");
    await exited;
  }
  return parseStorageTrace(await readFile(out, "utf8"));
}
