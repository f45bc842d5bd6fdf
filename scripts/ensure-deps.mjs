// Installs the project's dependencies on first use, so that `npm start`, `npm run dev` and `npm test` work
// straight after a clone. Runs on whatever Node is on PATH (the pinned Node arrives with
// the install), so it uses nothing but Node's standard library.
import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const marker = join(root, "node_modules", ".package-lock.json");

/**
 * npm checks each package's `engines` against the Node that runs npm, not the pinned Node 24
 * that runs the project (wrangler and miniflare ask for Node 22+): on Node 20 that is one
 * warning block per package, about nothing that will happen. Those lines are dropped; every
 * other line, errors first of all, is shown as npm wrote it.
 */
export function isEngineWarning(line) {
  return /^npm (warn|WARN) EBADENGINE\b/.test(line);
}

/** Installs the dependencies unless they are there; the exit code of a failed install, else 0. */
export async function ensureDependencies() {
  if (existsSync(marker)) return 0;
  console.log("Installing dependencies (first run)...");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const child = spawn(npm, ["ci", "--no-audit", "--no-fund", "--no-update-notifier"], { cwd: root, stdio: ["inherit", "inherit", "pipe"] });
  createInterface({ input: child.stderr }).on("line", (line) => {
    if (!isEngineWarning(line)) process.stderr.write(`${line}\n`);
  });
  return new Promise((resolve) => child.on("close", (status) => resolve(status ?? 1)));
}

// Run as a script (`prestart`, `prebench`); `npm test` imports it after its prerequisites check.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const code = await ensureDependencies();
  if (code !== 0) process.exit(code);
}
