/**
 * Where the suite runs: the project root, the pinned Node binary, free loopback ports and
 * throw-away directories. Everything listens on 127.0.0.1 only.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { atLastResort } from "./last-resort";

export const PROJECT_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const LOOPBACK = "127.0.0.1";
/** The mock server runs TypeScript directly, which needs Node's type stripping (Node 24). */
const MIN_NODE_MAJOR = 24;

/** The pinned Node: this process's own when it is recent enough, else the project's copy. */
export function nodeBinary(): string {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= MIN_NODE_MAJOR) return process.execPath;
  const pinned = join(PROJECT_ROOT, "node_modules", "node", "bin", "node");
  if (!existsSync(pinned)) throw new Error(`Node ${MIN_NODE_MAJOR}+ is needed; run the suite through npm or npx`);
  return pinned;
}

/** A port that was free a moment ago: the kernel picks it, we release it and hand it on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      if (!address || typeof address === "string") return reject(new Error("no TCP address"));
      server.close(() => resolve(address.port));
    });
  });
}

const tempDirs = new Set<string>();

/** Removes directories from a detached process, which outlives this one if the runner kills it mid-way. */
const REMOVE_SCRIPT = `const { rmSync } = require("node:fs");
for (const dir of process.argv.slice(1)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });`;

// A run cut short (a signal, a crash) still leaves no storage behind.
atLastResort("remove-files", () => {
  if (tempDirs.size === 0) return;
  spawn(process.execPath, ["-e", REMOVE_SCRIPT, ...tempDirs], { detached: true, stdio: "ignore" }).unref();
});

export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  tempDirs.add(dir);
  return dir;
}

export async function removeDir(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true, maxRetries: 3 });
  tempDirs.delete(path);
}

/** The child environment: this one without inherited wrangler or Cloudflare settings, plus `extra`. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      name.startsWith("CLOUDFLARE_") ||
      name.startsWith("WRANGLER_") ||
      name.startsWith("VITEST") ||
      name.startsWith("AGENT_PLATFORM_E2E_") ||
      name === "NODE_OPTIONS"
    )
      continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}
