/**
 * The platform as a real `wrangler dev` process on loopback, with its Durable Object storage
 * in a temporary directory that outlives the process, so it can be stopped (politely or with
 * kill -9) and started again on the same state.
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { generateApiKeySecret, generateSigningKey } from "../../../src/auth/dev-signing-key";
import { generateVaultKey } from "../../../src/vault/keys";
import { childEnv, freePort, LOOPBACK, makeTempDir, nodeBinary, PROJECT_ROOT, removeDir } from "./environment";
import { type GroupChild, spawnGroup, type StopSignal } from "./process-group";

/** A cold start bundles the Worker and boots workerd; on a loaded 2-core machine that takes a while. */
const STARTUP_TIMEOUT_MS = 90_000;
const HEALTH_POLL_MS = 100;
const HEALTH_REQUEST_TIMEOUT_MS = 2_000;
const MAX_START_ATTEMPTS = 3;
const ADDRESS_IN_USE = /EADDRINUSE|address already in use/i;
/** Output kept across every start of one platform, for failure messages. */
const MAX_HISTORY_CHARS = 128 * 1024;

export interface PlatformOptions {
  /** The mock server that stands in for the model provider. */
  modelUrl: string;
  /** More Worker variables, e.g. `DEFAULT_LIMITS` or `MODEL_TIMEOUT_MS`. */
  vars?: Record<string, string>;
  /** Another Worker's wrangler config (the benchmarks' bare loop); the project's by default. */
  config?: string;
  /** Another entry module for that config (the benchmarks' build of the platform). */
  main?: string;
  /** More environment for the wrangler process, e.g. its `X_LOCAL_OBSERVABILITY` switch. */
  env?: Record<string, string>;
  /**
   * A directory holding the Worker already bundled (`bundleWorker`): wrangler then runs it as it
   * is, without the build command or a bundling step of its own. Only with the project's config.
   */
  bundle?: string;
  /** Also append everything the process prints to this file, for readers in other processes. */
  outputFile?: string;
}

export class Platform {
  #child: GroupChild | null = null;
  #url: string | null = null;
  #inspectorPort: number | null = null;
  #history = "";
  /** How many times the process started and answered, the first time included. */
  starts = 0;

  private constructor(
    readonly root: string,
    readonly signingKey: string,
    private readonly envFile: string,
    private readonly processEnv: Record<string, string>,
    private readonly outputFile?: string,
  ) {}

  /** Prepares storage and configuration; `start()` then runs the process. */
  static async create(options: PlatformOptions): Promise<Platform> {
    const root = await makeTempDir("agent-platform-e2e");
    const signingKey = await generateSigningKey();
    const vars: Record<string, string> = {
      LLM_BASE_URL: options.modelUrl,
      ANTHROPIC_API_KEY: "e2e-test-key",
      OPENAI_BASE_URL: options.modelUrl,
      OPENAI_API_KEY: "e2e-test-openai-key",
      ALLOW_PRIVATE_URLS: "true",
      // The local runtime enforces no CPU limit on a child isolate (docs/tools.md).
      RUN_CODE_ISOLATE: "interpreter",
      AUTH_SIGNING_KEY: signingKey,
      AUTH_API_KEY_SECRET: generateApiKeySecret(),
      VAULT_KEYS: JSON.stringify([generateVaultKey()]),
      ...options.vars,
    };
    // Variables and the secret go to a file outside the project, never onto disk in it.
    const envFile = join(root, "worker.env");
    await writeFile(envFile, envFileText(vars), { mode: 0o600 });
    if (options.bundle && (options.config || options.main)) throw new Error("a bundle runs with the project's own config only");
    const config = options.bundle
      ? await bundledConfig(options.bundle)
      : await relocatedConfig(options.config ?? join(PROJECT_ROOT, "wrangler.json"), options.main);
    await writeFile(join(root, "wrangler.json"), config);
    return new Platform(root, signingKey, envFile, options.env ?? {}, options.outputFile);
  }

  /** The gateway's base URL; it changes on every start, since each start picks free ports. */
  get url(): string {
    if (!this.#url) throw new Error("the platform is not running");
    return this.#url;
  }

  /** The V8 inspector (Chrome DevTools protocol) of the running Worker and its Durable Objects. */
  get inspectorUrl(): string {
    if (!this.#inspectorPort) throw new Error("the platform is not running");
    return `http://${LOOPBACK}:${this.#inspectorPort}`;
  }

  get running(): boolean {
    return this.#child !== null;
  }

  /** The process group of the running wrangler, which holds its workerd too. */
  get processGroup(): number {
    if (!this.#child) throw new Error("the platform is not running");
    return this.#child.pid;
  }

  async start(): Promise<void> {
    if (this.#child) throw new Error("the platform is already running");
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#startOnce();
      } catch (error) {
        // A port found free can be taken by someone else before wrangler binds it: pick again.
        const taken = error instanceof Error && ADDRESS_IN_USE.test(error.message);
        if (!taken || attempt >= MAX_START_ATTEMPTS) throw error;
      }
    }
  }

  async #startOnce(): Promise<void> {
    const port = await freePort();
    let inspectorPort = await freePort();
    while (inspectorPort === port) inspectorPort = await freePort();
    const wrangler = join(PROJECT_ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
    const args = [
      wrangler,
      "dev",
      "--config",
      join(this.root, "wrangler.json"),
      "--local",
      "--ip",
      LOOPBACK,
      "--port",
      String(port),
      "--inspector-ip",
      LOOPBACK,
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      join(this.root, "state"),
      "--env-file",
      this.envFile,
      "--show-interactive-dev-session=false",
      "--log-level",
      "warn",
    ];
    const child = spawnGroup(nodeBinary(), args, {
      cwd: PROJECT_ROOT,
      env: childEnv({
        ...this.processEnv,
        CI: "true",
        WRANGLER_SEND_METRICS: "false",
        WRANGLER_SEND_ERROR_REPORTS: "false",
        WRANGLER_HIDE_BANNER: "true",
        // Its own registry and logs: parallel or killed instances must not see each other.
        WRANGLER_REGISTRY_PATH: join(this.root, "registry"),
        WRANGLER_LOG_PATH: join(this.root, "logs"),
      }),
      outputFile: this.outputFile,
    });
    this.#child = child;
    const url = `http://${LOOPBACK}:${port}`;
    try {
      await waitForHealth(url, child);
    } catch (error) {
      await this.stop("SIGKILL");
      throw error;
    }
    this.#url = url;
    this.#inspectorPort = inspectorPort;
    this.starts++;
  }

  /** Stops the whole process group: SIGTERM lets wrangler shut down, SIGKILL is a crash. */
  async stop(signal: StopSignal): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = null;
    this.#url = null;
    this.#inspectorPort = null;
    await child.stop(signal);
    this.#history = (this.#history + child.output()).slice(-MAX_HISTORY_CHARS);
  }

  async restart(signal: StopSignal): Promise<void> {
    await this.stop(signal);
    await this.start();
  }

  /** Output of every start so far, the running one last. */
  logs(): string {
    return (this.#history + (this.#child?.output() ?? "")).slice(-MAX_HISTORY_CHARS);
  }

  /** Kills whatever runs and removes the storage. Safe to call more than once. */
  async dispose(): Promise<void> {
    await this.stop("SIGKILL").catch(() => undefined);
    await removeDir(this.root);
  }
}

/**
 * A wrangler config (the project's by default) with `main` made absolute, placed in the temporary directory.
 * Wrangler keeps its build output beside the config it is given, and a killed wrangler never
 * cleans up; this way that output goes with the temporary directory instead of piling up in
 * the project.
 */
export async function relocatedConfig(path: string = join(PROJECT_ROOT, "wrangler.json"), main?: string): Promise<string> {
  const config = JSON.parse(await readFile(path, "utf8")) as {
    main?: unknown;
    $schema?: unknown;
    assets?: { directory?: string };
    build?: { command?: string; cwd?: string };
    alias?: Record<string, string>;
  };
  const entry = main ?? config.main;
  if (typeof entry !== "string") throw new Error(`${path} has no main`);
  delete config.$schema;
  // Paths in the config are relative to it: point them back at where it lives.
  const base = dirname(path);
  if (config.assets?.directory) config.assets.directory = resolve(base, config.assets.directory);
  if (config.build) config.build.cwd = PROJECT_ROOT;
  for (const [name, target] of Object.entries(config.alias ?? {})) {
    if (target.startsWith(".")) config.alias![name] = resolve(base, target);
  }
  return JSON.stringify({ ...config, main: resolve(base, entry) }, null, 2);
}

/** The file of a bundle that wrangler runs; the other files beside it are its modules. */
const BUNDLE_ENTRY = "index.js";

/**
 * Bundles the Worker once, as `wrangler deploy` would (its dry run: nothing is uploaded), into
 * `outDir`, for `PlatformOptions.bundle`. The build command is left out: the static assets are
 * built beforehand (the test configuration does it), and `assets.directory` points at them.
 */
export async function bundleWorker(outDir: string): Promise<void> {
  const work = await makeTempDir("agent-platform-bundle");
  try {
    const config = JSON.parse(await relocatedConfig()) as { build?: unknown };
    delete config.build;
    await writeFile(join(work, "wrangler.json"), JSON.stringify(config, null, 2));
    const wrangler = join(PROJECT_ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
    const child = spawnGroup(nodeBinary(), [wrangler, "deploy", "--dry-run", "--outdir", outDir, "--config", join(work, "wrangler.json")], {
      cwd: PROJECT_ROOT,
      env: childEnv({
        CI: "true",
        WRANGLER_LOG: "warn",
        WRANGLER_SEND_METRICS: "false",
        WRANGLER_SEND_ERROR_REPORTS: "false",
        WRANGLER_REGISTRY_PATH: join(work, "registry"),
        WRANGLER_LOG_PATH: join(work, "logs"),
      }),
    });
    const code = await new Promise<number | null>((resolve) => child.child.once("exit", (exitCode) => resolve(exitCode)));
    await child.stop("SIGKILL");
    if (code !== 0) throw new Error(`bundling the Worker failed (exit ${code}):\n${child.output()}`);
    await readFile(join(outDir, BUNDLE_ENTRY));
  } finally {
    await removeDir(work);
  }
}

/**
 * The project's config for a bundle made by `bundleWorker`: its entry and the modules beside it
 * are used as they are (`no_bundle`), wasm modules by the names the bundler gave them.
 */
export async function bundledConfig(bundle: string): Promise<string> {
  const config = JSON.parse(await relocatedConfig()) as Record<string, unknown>;
  delete config.build;
  delete config.alias;
  return JSON.stringify(
    {
      ...config,
      main: join(bundle, BUNDLE_ENTRY),
      no_bundle: true,
      rules: [{ type: "CompiledWasm", globs: ["**/*-wasm", "**/*.wasm"], fallthrough: true }],
    },
    null,
    2,
  );
}

/** dotenv text; single quotes keep JSON (double quotes, braces) literal. */
function envFileText(vars: Record<string, string>): string {
  return Object.entries(vars)
    .map(([name, value]) => {
      if (/['\n$]/.test(value)) throw new Error(`${name}: a value for the env file cannot contain ', $ or a newline`);
      return `${name}='${value}'\n`;
    })
    .join("");
}

async function waitForHealth(url: string, child: GroupChild): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let exited = false;
  child.child.once("exit", () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`wrangler dev exited during start-up:\n${child.output()}`);
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(HEALTH_REQUEST_TIMEOUT_MS) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(HEALTH_POLL_MS);
  }
  throw new Error(`wrangler dev did not answer /health within ${STARTUP_TIMEOUT_MS} ms:\n${child.output()}`);
}
