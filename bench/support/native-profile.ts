/**
 * A native CPU profile of the runtime with `perf`, where it is installed and allowed: the
 * JavaScript profile sees only the isolate, while most of a unit's CPU time goes to workerd's
 * own code (storage, the event loop, RPC between objects) and the kernel. Self time is grouped
 * into a few areas by symbol name.
 */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Samples per second; enough for a few seconds of work without slowing it much. */
const FREQUENCY_HZ = 999;
/** perf says nothing once attached; this is ample on a loaded machine. */
const ATTACH_MS = 500;

export function perfAvailable(): boolean {
  return spawnSync("perf", ["--version"], { stdio: "ignore" }).status === 0;
}

/** SQLite's own functions, many of them static and unprefixed in the symbol table. */
const SQLITE = /^(sqlite3|json[A-Z]|wal[A-Z]|pcache|pager|btree|balance|vdbe|where[A-Z]|keywordCode|yy_|unixSync|unixWrite|unixRead)/;
/** workerd's own code: C++ (plain or mangled) and its Rust parts (the server, tokio, HTTP). */
const WORKERD = /^(workerd::|_ZN[HK]?\d+workerd|<?(workerd_server|worker::|tokio|async_trace|http::|kj_rs|core::|alloc::|std::))/;

/** Pure: the area of one symbol of `perf report --sort dso,sym`. */
export function nativeArea(dso: string, symbol: string): string {
  if (dso === "[kernel.kallsyms]") return "kernel (system calls: file writes and syncs, sockets)";
  if (dso === "[JIT]" || /^(Builtins_|v8::|v8_inspector::|cppgc::|Runtime_|_ZN[HK]?\d+v8)/.test(symbol))
    return "V8 (JavaScript, builtins, GC)";
  if (SQLITE.test(symbol)) return "SQLite";
  if (/tcmalloc|^__mem|^mem(cpy|move|set|cmp)|malloc|^free|^operator (new|delete)/i.test(symbol)) return "memory allocation and copies";
  if (/^(kj|capnp)::|^_ZN[HK]?\d+(kj|capnp)/.test(symbol)) return "KJ event loop and Cap'n Proto (I/O, RPC)";
  if (WORKERD.test(symbol)) return "workerd's own code (actors, storage, server)";
  if (/^(libc|libm|ld-linux|libgcc)|^\[vdso\]$/.test(dso)) return "libc and system libraries";
  return "other";
}

/** Pure: milliseconds by area from `perf report --no-children --sort dso,sym --stdio -g none`. */
export function parsePerfReport(text: string): Map<string, number> {
  const totalNs = Number(/# Event count \(approx\.\): (\d+)/.exec(text)?.[1] ?? 0);
  const areas = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)$/.exec(line);
    if (!match) continue;
    const area = nativeArea(match[2]!, match[3]!.trim());
    areas.set(area, (areas.get(area) ?? 0) + (Number(match[1]) / 100) * (totalNs / 1e6));
  }
  return areas;
}

/** CPU milliseconds by area that `pids` spend while `work` runs. */
export async function profileNative(
  pids: readonly number[],
  outDir: string,
  name: string,
  work: () => Promise<void>,
): Promise<Map<string, number>> {
  const data = join(outDir, `${name}.perf.data`);
  const recorder = spawn("perf", ["record", "-F", String(FREQUENCY_HZ), "-o", data, "-p", pids.join(",")], { stdio: "ignore" });
  await sleep(ATTACH_MS);
  try {
    await work();
  } finally {
    const exited = new Promise((resolve) => recorder.once("exit", resolve));
    recorder.kill("SIGINT");
    await exited;
  }
  const report = spawnSync("perf", ["report", "-i", data, "--no-children", "--sort", "dso,sym", "--stdio", "-g", "none"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (report.status !== 0) throw new Error(`perf report failed: ${report.stderr}`);
  return parsePerfReport(report.stdout);
}
