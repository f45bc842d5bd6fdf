/**
 * Where `npm start` says its platform answers, so `npm run demo` (and anything else run beside
 * it) uses the port it was given: `npm start` writes `.wrangler/dev-server.json` beside its
 * wrangler config once the platform is ready and removes it when it stops. Readers check that
 * the process is alive and the platform answers, since a killed `npm start` leaves the file.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The file for the `npm start` that runs with this wrangler config. */
export function devServerFile(configPath) {
  return join(dirname(configPath), ".wrangler", "dev-server.json");
}

export function recordDevServer(configPath, baseUrl) {
  const file = devServerFile(configPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ url: baseUrl, pid: process.pid })}\n`);
}

export function forgetDevServer(configPath) {
  rmSync(devServerFile(configPath), { force: true });
}

/**
 * The running platform's URL, or why there is none: `{ url }` or `{ problem }`, a sentence for a
 * newcomer (no stack trace).
 */
export async function findDevServer(configPath, { timeoutMs = 5_000 } = {}) {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(devServerFile(configPath), "utf8"));
  } catch {
    return { problem: "No platform is running: start one with `npm start` in another terminal (or pass --url)." };
  }
  if (!isAlive(recorded.pid)) {
    return { problem: `The platform that ran on ${recorded.url} has stopped: start it again with \`npm start\` (or pass --url).` };
  }
  return (await answers(recorded.url, timeoutMs))
    ? { url: recorded.url }
    : {
        problem: `npm start is running but its platform does not answer on ${recorded.url} yet: wait for "The platform is ready", then try again.`,
      };
}

/** Whether the platform at `url` answers its health check. */
export async function answers(url, timeoutMs = 5_000) {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return error?.code === "EPERM";
  }
}
