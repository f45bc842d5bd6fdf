// What `npm test` needs beyond its npm dependencies, checked before anything is installed or
// started, so a machine that lacks one hears so in the first seconds, with the line that fixes
// it, not ten minutes in. Node's standard library only: it runs on whatever Node is on PATH.
import { accessSync, constants } from "node:fs";
import { createServer } from "node:net";

/** Debian's package, where the console's and `/docs`' browser tests look unless `CHROMIUM_PATH` says otherwise. */
export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";
export const CHROMIUM_INSTALL = "sudo apt-get install -y chromium   (or set CHROMIUM_PATH to a Chromium or Chrome binary)";
/** What npm and the install step need; the suite itself runs on the pinned Node 24 the install brings. */
export const MIN_PATH_NODE_MAJOR = 20;
/** Every server of the suite listens here, on a port the kernel picks (port 0): no fixed port can collide. */
export const LOOPBACK = "127.0.0.1";

/** The Chromium the browser tests launch. */
export function chromiumPath(env = process.env) {
  return env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH;
}

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether a server can listen on the loopback address at a port the kernel picks. */
export function canListenOnLoopback(host = LOOPBACK) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(0, host, () => server.close(() => resolve(true)));
  });
}

/**
 * Whether a run with these `vitest` arguments reaches the end-to-end files, where the browser
 * tests are: the whole suite (no arguments), the e2e project, or a file under `test/e2e`.
 */
export function reachesEndToEnd(args) {
  if (args.length === 0) return true;
  return args.some((arg, i) => arg === "--project=e2e" || (arg === "e2e" && args[i - 1] === "--project") || arg.includes("test/e2e"));
}

/**
 * What is missing, each as `{ what, fix }`; empty when the run can go ahead. Every probe is an
 * argument, so a test can show the missing case on a machine that has everything.
 */
export async function missingPrerequisites({
  args = [],
  chromium = chromiumPath(),
  executable = isExecutable,
  nodeVersion = process.versions.node,
  listen = canListenOnLoopback,
} = {}) {
  const missing = [];
  if (reachesEndToEnd(args) && !executable(chromium)) {
    missing.push({ what: `Chromium, for the console's and /docs' browser tests: nothing runnable at ${chromium}`, fix: CHROMIUM_INSTALL });
  }
  // The project's pinned Node 24 (node_modules/node) arrives with the install, which `npm test`
  // runs first on a clean clone, and runs the suite; the Node on PATH only runs npm and this.
  const major = Number(nodeVersion.split(".")[0]);
  if (major < MIN_PATH_NODE_MAJOR) {
    missing.push({
      what: `Node ${MIN_PATH_NODE_MAJOR} or newer on PATH (found ${nodeVersion})`,
      fix: "install Node 20+ (https://nodejs.org/en/download), then npm test again",
    });
  }
  if (!(await listen())) {
    missing.push({
      what: `a server cannot listen on ${LOOPBACK}: every server of the suite listens there, on a port the kernel picks`,
      fix: "bring the loopback interface up (ip link set lo up) or run where 127.0.0.1 is available",
    });
  }
  return missing;
}

/** The lines `npm test` prints before it stops. */
export function prerequisiteReport(missing) {
  return [
    `npm test cannot run on this machine yet; missing ${missing.length === 1 ? "one prerequisite" : `${missing.length} prerequisites`}:`,
    ...missing.flatMap(({ what, fix }) => [`  - ${what}`, `    install: ${fix}`]),
    "Then run npm test again. (docs/testing.md#prerequisites)",
  ].join("\n");
}
