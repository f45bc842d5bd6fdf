// `npm test`: the whole suite, as three Vitest runs side by side. In one run, Vitest puts a
// project that keeps to one file at a time (the end-to-end one) in a group of its own and runs
// the groups one after another, so the end-to-end files, which mostly wait on real processes,
// would leave idle the cores that the workerd and Node projects could use. Here the `workers`,
// `workers-isolated` and `node` projects run in one Vitest process, and the `e2e` files in two
// more, half each (Vitest's `--shard`), all at the same time; each line of output is marked with
// its run, and the exit status is that of the worst run. The halves are balanced by time: each
// file weighs what `test/e2e/durations.json` measured (a new file a minute), and the heaviest
// go first to the lighter half, since Vitest's own `--shard` splits by count and left one half
// twice as long as the other. With arguments (`npm test -- <files or
// options>`) it is one plain `vitest run` with them, as before.
//
// Before anything is installed or started, it checks what the run needs beyond npm
// (scripts/prerequisites.mjs) and stops in its first lines with what is missing and how to
// install it.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { e2eShards } from "./e2e-shards.mjs";
import { ensureDependencies } from "./ensure-deps.mjs";
import { missingPrerequisites, prerequisiteReport } from "./prerequisites.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
const extra = process.argv.slice(2);

const missing = await missingPrerequisites({ args: extra });
if (missing.length > 0) {
  console.error(prerequisiteReport(missing));
  process.exit(1);
}
const installed = await ensureDependencies();
if (installed !== 0) process.exit(installed);
// The pinned Node (the `node` dev dependency) runs the suite, as `npm` puts it first on PATH
// once it is installed; on a clean clone this process started before it existed.
const pinnedNode = join(root, "node_modules", "node", "bin", "node");
const node = existsSync(pinnedNode) ? pinnedNode : process.execPath;

function run(args, label) {
  const child = spawn(node, [vitest, "run", ...args], { cwd: root, stdio: label ? ["ignore", "pipe", "pipe"] : "inherit" });
  if (label) {
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      createInterface({ input: stream }).on("line", (line) => out.write(`[${label}] ${line}\n`));
    }
  }
  const done = new Promise((resolve) => {
    child.once("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.once("error", (error) => {
      console.error(`[${label ?? "vitest"}] could not start: ${error.message}`);
      resolve(1);
    });
  });
  return { child, done };
}

const E2E_SHARDS = 2;
const runs =
  extra.length > 0
    ? [run(extra, null)]
    : (() => {
        const started = Date.now();
        const all = [
          { label: "unit", ...run(["--project", "workers", "--project", "workers-isolated", "--project", "node"], "unit") },
          // The end-to-end files in two halves side by side: they mostly wait on the processes
          // they start, and one after another they took longer than the rest of the suite.
          ...e2eShards(root, "test/e2e", E2E_SHARDS).map((files, i) => {
            const label = `e2e ${i + 1}/${E2E_SHARDS}`;
            return { label, ...run(["--project", "e2e", ...files], label) };
          }),
        ];
        for (const { label, done } of all) {
          void done.then((code) =>
            console.log(`[${label}] finished with exit code ${code} after ${((Date.now() - started) / 1000).toFixed(0)} s`),
          );
        }
        return all;
      })();

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    for (const { child } of runs) child.kill(signal);
  });
}

const codes = await Promise.all(runs.map((r) => r.done));
process.exit(Math.max(...codes));
