// Installs the project's dependencies on first use, so that `npm start` and `npm test` work
// straight after a clone. Runs on whatever Node is on PATH (the pinned Node arrives with
// the install), so it uses nothing but Node's standard library.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const marker = join(root, "node_modules", ".package-lock.json");

if (!existsSync(marker)) {
  console.log("Installing dependencies (first run)...");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
