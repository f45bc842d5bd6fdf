/**
 * System calls of the runtime while a run goes, counted with `strace -c` where it is installed:
 * every SQLite commit of a Durable Object shows up as writes and an fsync, so the counts say how
 * many storage round trips a unit makes, which CPU profiles of JavaScript cannot see.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** strace reports each process once it is attached; slower than this is a failure to attach. */
const ATTACH_TIMEOUT_MS = 10_000;

export function straceAvailable(): boolean {
  return spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0;
}

/** Pure: the `calls` column of `strace -c` output, by system call. */
export function parseStraceSummary(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split("\n")) {
    const tokens = line.trim().split(/\s+/);
    const name = tokens[tokens.length - 1];
    // % time, seconds, usecs/call, calls, [errors,] syscall
    if (tokens.length < 5 || !/^\d/.test(tokens[0]!) || !name || name === "total") continue;
    counts.set(name, Number(tokens[3]));
  }
  return counts;
}

/** Counts the system calls of `pids` (and their threads) while `work` runs. */
export async function countSyscalls(pids: readonly number[], outDir: string, work: () => Promise<void>): Promise<Map<string, number>> {
  const out = join(outDir, `strace-${pids.join("-")}.txt`);
  const tracer = spawn("strace", ["-c", "-f", "-o", out, ...pids.flatMap((pid) => ["-p", String(pid)])], { stdio: ["ignore", "ignore", "pipe"] });
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
  return parseStraceSummary(await readFile(out, "utf8"));
}
