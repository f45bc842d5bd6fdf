/**
 * `npm start` and `npm run dev`: everything a first run needs, in one terminal. Makes sure `.dev.vars` has a
 * development signing key; when no provider key is configured (ANTHROPIC_API_KEY in `.dev.vars`
 * or the environment) it starts the tool-using mock model and points the platform at it; runs
 * `wrangler dev` with its state in `.wrangler/state`; prints tokens and `curl` lines once the
 * platform answers; and restarts the platform when `.dev.vars` changes (wrangler itself reloads
 * on changes to the code and to wrangler.json).
 *
 * Options of its own: `--mock-port <n>` (default 8788). Every other argument goes to wrangler
 * (`npm start -- --port 9000`); `--config` also moves `.dev.vars` beside that config, as
 * wrangler reads it.
 */
import { spawn } from "node:child_process";
import { watchFile, unwatchFile } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../test/support/node/mock-server.ts";
import { toolUsingFallback } from "../test/support/node/tool-using-model.ts";
import { argValue, PROVIDER_KEY, withoutArg, wranglerDevArgs } from "./dev-args.mjs";
import { quickStartGuide } from "./dev-guide.mjs";
import { forgetDevServer, recordDevServer } from "./dev-server.mjs";
import { DEV_TOKEN_TTL_SECONDS, ensureDevVars, mintDevToken, readDevVars, WRANGLER_JSON } from "./dev-vars.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const wranglerBin = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
const DEFAULT_PORT = "8787";
const DEFAULT_MOCK_PORT = 8788;
/** A cold start bundles the Worker and boots workerd; a slow machine needs a while. */
const READY_TIMEOUT_MS = 120_000;
const WATCH_INTERVAL_MS = 1_000;
/** How long wrangler gets to stop politely before it is killed. */
const STOP_TIMEOUT_MS = 10_000;
const DEV_TENANT = "dev";

// ---- arguments -----------------------------------------------------------------------------

const userArgs = process.argv.slice(2);
const mockPortArg = argValue(userArgs, "--mock-port");
const wranglerArgs = withoutArg(userArgs, "--mock-port");
const configPath = resolve(root, argValue(wranglerArgs, "--config") ?? WRANGLER_JSON);
const devVarsPath = join(dirname(configPath), ".dev.vars");
const port = argValue(wranglerArgs, "--port") ?? DEFAULT_PORT;
const host = argValue(wranglerArgs, "--ip") ?? "127.0.0.1";
const baseUrl = `http://${host === "0.0.0.0" || host === "localhost" ? "127.0.0.1" : host}:${port}`;

// ---- the mock model ------------------------------------------------------------------------

let mock = null;

async function startMock() {
  const wanted = mockPortArg === undefined ? DEFAULT_MOCK_PORT : Number(mockPortArg);
  try {
    return await startMockServer({ port: wanted, modelFallback: toolUsingFallback });
  } catch (error) {
    // Something else has the usual port; any free one will do, since the platform is told it.
    if (error?.code !== "EADDRINUSE" || mockPortArg !== undefined) throw error;
    return startMockServer({ port: 0, modelFallback: toolUsingFallback });
  }
}

// ---- wrangler ------------------------------------------------------------------------------

let wrangler = null;
let secretsDir = null;

/** Where the provider key comes from, which decides whether the mock runs. */
async function providerMode() {
  const vars = await readDevVars(devVarsPath);
  if (vars[PROVIDER_KEY]) return { kind: "dev-vars" };
  if (process.env[PROVIDER_KEY]) return { kind: "environment", key: process.env[PROVIDER_KEY] };
  return { kind: "mock" };
}

/** The arguments for this start; a key from the environment goes through a private file, never the command line (`ps` shows it). */
async function wranglerArguments(mode) {
  let envFile;
  if (mode.kind === "environment") {
    secretsDir ??= await mkdtemp(join(tmpdir(), "agent-platform-dev-"));
    envFile = join(secretsDir, "provider.env");
    await writeFile(envFile, `${PROVIDER_KEY}=${JSON.stringify(mode.key)}\n`, { mode: 0o600 });
  }
  return wranglerDevArgs({ root, mode: mode.kind, mockUrl: mock?.url, envFile, devVarsPath, userArgs: wranglerArgs });
}

function startWrangler(args) {
  // In this process's group: Ctrl-C in the terminal reaches wrangler too, and so does a
  // supervisor's signal to the group.
  const child = spawn(process.execPath, [wranglerBin, ...args], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      // Local development reports nothing to anyone, and needs no `Request.cf` data fetched
      // from the internet (offline, that fetch prints a stack trace on every start).
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_SEND_ERROR_REPORTS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_HIDE_BANNER: "true",
      ...process.env,
    },
  });
  const exited = new Promise((resolveExit) => child.once("exit", (code, signal) => resolveExit({ code, signal })));
  return { child, exited };
}

/** SIGTERM lets wrangler stop the workerd it started; SIGKILL only if it does not exit in time. */
async function stopWrangler() {
  const running = wrangler;
  wrangler = null;
  if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill("SIGTERM");
  const stopped = await Promise.race([running.exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
  if (!stopped) {
    running.child.kill("SIGKILL");
    await running.exited;
  }
}

async function waitUntilReady(running) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let gone = false;
  running.exited.then(() => (gone = true));
  while (Date.now() < deadline && !gone) {
    try {
      // Generous: a request that arrives while workerd boots is answered once it is up.
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(30_000) });
      await res.body?.cancel();
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  return false;
}

function createdMessage() {
  return `Created ${relative(process.cwd(), devVarsPath)} with a fresh development signing key (git-ignored; never commit it).`;
}

// ---- one start -----------------------------------------------------------------------------

let stopping = false;
let signingKey = null;

async function start() {
  const { key, created } = await ensureDevVars({ path: devVarsPath });
  if (created) console.log(createdMessage());

  const mode = await providerMode();
  if (mode.kind === "mock") {
    mock ??= await startMock();
    console.log(
      `No ${PROVIDER_KEY} in .dev.vars or the environment: the mock model runs on ${mock.url} and stands in for the provider.\n` +
        `It calls each of a session's tools once, then answers from their results. For the real model, add ${PROVIDER_KEY}=... to .dev.vars.`,
    );
  } else {
    if (mock) await mock.close();
    mock = null;
    console.log(`Using the model provider with ${PROVIDER_KEY} from ${mode.kind === "dev-vars" ? ".dev.vars" : "the environment"}.`);
  }

  const running = startWrangler(await wranglerArguments(mode));
  wrangler = running;
  running.exited.then(({ code, signal }) => {
    // Stopped by us (a restart or a shutdown) or gone by itself: only the latter ends npm start.
    if (wrangler !== running || stopping) return;
    void shutdown(code ?? (signal ? 1 : 0));
  });
  if (!(await waitUntilReady(running))) {
    if (wrangler === running && !stopping) {
      console.error(`The platform did not answer ${baseUrl}/health within ${READY_TIMEOUT_MS / 1000} s.`);
      await shutdown(1);
    }
    return;
  }

  // `npm run demo` finds the platform here, on whatever port it was given.
  recordDevServer(configPath, baseUrl);
  // The guide again only when its tokens changed: a new signing key makes the old ones invalid.
  if (key === signingKey) return console.log(`The platform is ready again on ${baseUrl}; the tokens above still work.`);
  signingKey = key;
  const token = await mintDevToken(key, { tenantId: DEV_TENANT, configPath });
  const adminToken = await mintDevToken(key, { tenantId: DEV_TENANT, subject: "dev-admin", scopes: ["platform:admin"], configPath });
  const ttlHours = DEV_TOKEN_TTL_SECONDS / 3600;
  console.log(`\n${quickStartGuide({ baseUrl, token, adminToken, tenantId: DEV_TENANT, ttlHours, mockUrl: mock?.url ?? null })}`);
}

// ---- restarts and shutdown -----------------------------------------------------------------

let restarting = Promise.resolve();

function restart() {
  restarting = restarting.then(async () => {
    if (stopping) return;
    console.log("\n.dev.vars changed: restarting the platform (sessions are kept in .wrangler/state).");
    await stopWrangler();
    if (!stopping) await start();
  });
}

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  unwatchFile(devVarsPath);
  forgetDevServer(configPath);
  await stopWrangler();
  await mock?.close();
  if (secretsDir) await rm(secretsDir, { recursive: true, force: true });
  process.exit(code);
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => void shutdown(0));

// The key first, so that writing it does not count as a change to restart for.
if ((await ensureDevVars({ path: devVarsPath })).created) console.log(createdMessage());
let lastDevVars = await readFile(devVarsPath, "utf8");
watchFile(devVarsPath, { interval: WATCH_INTERVAL_MS }, async () => {
  // Editors touch files without changing them; only a new text restarts.
  const text = await readFile(devVarsPath, "utf8").catch(() => "");
  if (text === lastDevVars) return;
  lastDevVars = text;
  restart();
});

restarting = restarting.then(start);
