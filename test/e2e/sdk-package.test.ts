/**
 * The SDK as a user gets it: `npm pack` builds and packs sdk/, the tarball is installed into a
 * fresh project outside the repository (offline: its dependencies are packed from this
 * repository's node_modules, so nothing is fetched), and a script runs there with the machine's
 * own Node (not the project's pinned one) against `wrangler dev`. The same installed package is
 * type-checked as a TypeScript consumer resolves it, and bundled for a platform without Node's
 * modules (browsers, Workers, Deno).
 */
import { execFile } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { say } from "./support/scenario";
import { makeTempDir, nodeBinary, PROJECT_ROOT, removeDir } from "./support/environment";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

const run = promisify(execFile);
const SDK_DIR = join(PROJECT_ROOT, "sdk");
const STEP_TIMEOUT_MS = 90_000;

/** The first `node` on PATH outside any node_modules: the machine's, not the pinned devDependency. */
function machineNode(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir || dir.includes("node_modules")) continue;
    const candidate = join(dir, "node");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error("no node on PATH outside node_modules");
}

/** This environment without npm's per-run settings, which would point an install back at the repository. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

/** The directories of `pkgDir`'s runtime dependencies, transitively, resolved as Node resolves them. */
function dependencyDirs(pkgDir: string, found = new Map<string, string>()): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  const require = createRequire(join(pkgDir, "package.json"));
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (found.has(name)) continue;
    // Every dependency's own manifest may be hidden by `exports`: find it through its directory.
    const paths = require.resolve.paths(name) ?? [];
    const dir = paths
      .map((base) => join(base, name))
      .find((candidate) => {
        try {
          accessSync(join(candidate, "package.json"));
          return true;
        } catch {
          return false;
        }
      });
    if (!dir) throw new Error(`${name} (a dependency of ${pkgDir}) is not installed`);
    found.set(name, dir);
    dependencyDirs(dir, found);
  }
  return found;
}

const SCRIPT = `import { createPlatformClient, runSession } from "@agent-platform/sdk";

const client = createPlatformClient({ baseUrl: process.env.PLATFORM_URL, credential: process.env.PLATFORM_TOKEN });
const asked = [];
const streamed = [];
const run = await runSession(
  client,
  {
    input: "Where is order 0?",
    model: process.env.PLATFORM_MODEL,
    tools: [{ type: "client", name: "lookup_order", description: "Finds an order.", input_schema: { type: "object", properties: { n: { type: "integer" } } } }],
  },
  {
    tools: { lookup_order: ({ n }) => (asked.push(n), "order " + n + ": shipped") },
    onEvent: (frame) => frame.type === "delta" && streamed.push(frame.data.text),
  },
);
const { status } = run.session;
console.log(JSON.stringify({ node: process.version, status, answer: run.answer, cost_usd: run.cost_usd, steps: run.usage.steps, asked, streamed: streamed.join("") }));
`;

/** A backend mints its user's token, the user's client asks who it is, the backend revokes it. */
const END_USER_SCRIPT = `import { createPlatformClient, endUsers, me, PlatformError } from "@agent-platform/sdk";

const backend = createPlatformClient({ baseUrl: process.env.PLATFORM_URL, credential: process.env.PLATFORM_TOKEN });
const issued = await endUsers.issueToken(backend, { subject: "user_42", ttl_seconds: 600 });
const user = createPlatformClient({ baseUrl: process.env.PLATFORM_URL, credential: issued.access_token });
const seen = await me(user);
await endUsers.revokeTokens(backend, "user_42");
let after = 0;
try {
  await me(user);
} catch (error) {
  after = error instanceof PlatformError ? error.status : -1;
}
console.log(JSON.stringify({ node: process.version, expires_in: issued.expires_in, seen, after }));
`;

const CONSUMER_TS = `import { clientTool, createPlatformClient, runSession, type SessionRun } from "@agent-platform/sdk";

export async function lookUp(token: string): Promise<string> {
  const client = createPlatformClient({ baseUrl: "http://127.0.0.1:8787", credential: token });
  const run: SessionRun = await runSession(
    client,
    { input: "x", tools: [{ type: "client", name: "a", description: "d", input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } }] },
    { tools: { a: ({ n }) => n.toFixed(0) } },
  );
  return run.answer;
}

/** An agent's client tools, which the SDK cannot see: each handler typed by its schema or its type. */
export async function viaAgent(token: string): Promise<number | null> {
  const client = createPlatformClient({ baseUrl: "http://127.0.0.1:8787", credential: token });
  const located = { type: "object", properties: { precise: { type: "boolean" } }, required: ["precise"] } as const;
  const run = await runSession(
    client,
    { agent: "agt_concierge", input: "Where am I?" },
    {
      tools: {
        locate: clientTool(located, ({ precise }) => (precise ? "48.85,2.35" : "Paris")),
        count: clientTool<{ n: number }>(({ n }) => n.toFixed(0)),
        // @ts-expect-error: the input is typed (not unknown, not any): a number has no toUpperCase
        wrong: clientTool<{ n: number }>(({ n }) => n.toUpperCase()),
      },
    },
  );
  return run.cost_usd;
}
`;

describe("the packed SDK in a fresh project", () => {
  let stack: SharedStack;
  let dir: string;
  let project: string;

  beforeAll(async () => {
    stack = await sharedStack();
    dir = await makeTempDir("agent-platform-sdk-pack");
    const tarballs = join(dir, "tarballs");
    await mkdir(tarballs);
    // `prepack` builds dist/ first: the tarball is what `npm publish` would upload.
    await run("npm", ["pack", "--pack-destination", tarballs, "--silent"], { cwd: SDK_DIR, env: cleanEnv(), timeout: STEP_TIMEOUT_MS });
    const dependencies = [...dependencyDirs(SDK_DIR).values()];
    await run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", tarballs, ...dependencies], {
      cwd: dir,
      env: cleanEnv(),
      timeout: STEP_TIMEOUT_MS,
    });

    project = join(dir, "backend");
    await mkdir(project);
    await writeFile(join(project, "package.json"), JSON.stringify({ name: "backend", private: true, type: "module" }));
    const files = (await readdir(tarballs)).map((file) => join(tarballs, file));
    expect(files.some((file) => /agent-platform-sdk-\d+\.\d+\.\d+\.tgz$/.test(file))).toBe(true);
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", ...files], {
      cwd: project,
      env: cleanEnv(),
      timeout: STEP_TIMEOUT_MS,
    });
  }, 4 * STEP_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.dispose();
    if (dir) await removeDir(dir);
  });

  it("holds only the built package: ESM JavaScript, declarations, the changelog, no TypeScript source", () => {
    const installed = join(project, "node_modules", "@agent-platform", "sdk");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(readFileSync(join(installed, "CHANGELOG.md"), "utf8")).toContain(`## ${String(manifest.version)}`);
    expect(readFileSync(join(installed, "LICENSE"), "utf8")).toContain("Apache License");
    expect(manifest.license).toBe("Apache-2.0");
    expect(() => accessSync(join(installed, "src"))).toThrow();
    expect(readFileSync(join(installed, "dist", "index.js"), "utf8")).toContain('from "./run.js"');
    expect(readFileSync(join(installed, "dist", "index.d.ts"), "utf8")).not.toMatch(/from "\.\/[^"]+\.ts"/);
  });

  it("runs a session to its end from a script on the machine's Node", async () => {
    // A model the built-in table prices ($3 in, $15 out per million tokens), so the run has a cost.
    const model = stack.mock.model(uniqueName("claude-sonnet-4"));
    const first = [
      { type: "text", text: "Looking up order 0." },
      { type: "tool_use", id: "toolu_order", name: "lookup_order", input: { n: 0 } },
    ];
    await model.script({ reply: { content: first } }, say("Order 0 has shipped."));
    const token = await (
      await tokenMinter(stack.platform.signingKey)
    )({ tenantId: uniqueName("sdk-pack"), subject: "backend", scopes: ["sessions:read", "sessions:write"] });
    await writeFile(join(project, "run.mjs"), SCRIPT);
    const node = machineNode();
    const { stdout } = await run(node, ["run.mjs"], {
      cwd: project,
      env: { PATH: dirname(node), PLATFORM_URL: stack.platform.url, PLATFORM_TOKEN: token, PLATFORM_MODEL: model.key },
      timeout: STEP_TIMEOUT_MS,
    });
    const result = JSON.parse(stdout) as {
      node: string;
      status: string;
      answer: string;
      cost_usd: number | null;
      steps: number;
      asked: number[];
      streamed: string;
    };
    // Two calls of the mock's 10 tokens in and 5 out: 20 × $3 + 10 × $15, per million.
    expect(result).toMatchObject({ status: "done", answer: "Order 0 has shipped.", cost_usd: 0.00021, steps: 2, asked: [0] });
    // The first model call's text too: the input is posted only once the stream watches.
    expect(result.streamed).toContain("Looking up order 0.");
    expect(Number(result.node.slice(1).split(".")[0])).toBeGreaterThanOrEqual(20);
    console.log(
      `the packed SDK ran on the machine's Node ${result.node}: answer ${JSON.stringify(result.answer)}, cost_usd ${result.cost_usd}`,
    );
  });

  it("mints an end user's token, reads who it is and revokes it, from a script on the machine's Node", async () => {
    const tenantId = uniqueName("sdk-eu");
    const token = await (
      await tokenMinter(stack.platform.signingKey)
    )({ tenantId, subject: "backend", scopes: ["sessions:read", "sessions:write", "end_users:issue"] });
    await writeFile(join(project, "end-user.mjs"), END_USER_SCRIPT);
    const node = machineNode();
    const { stdout } = await run(node, ["end-user.mjs"], {
      cwd: project,
      env: { PATH: dirname(node), PLATFORM_URL: stack.platform.url, PLATFORM_TOKEN: token },
      timeout: STEP_TIMEOUT_MS,
    });
    const result = JSON.parse(stdout) as { node: string; expires_in: number; seen: Record<string, unknown>; after: number };
    expect(result.seen).toMatchObject({
      tenant_id: tenantId,
      sub: "end_user:user_42",
      kind: "end_user",
      scopes: ["sessions:read", "sessions:write"],
    });
    expect(result.expires_in).toBeLessThanOrEqual(600);
    expect(result.after).toBe(401);
    expect(Number(result.node.slice(1).split(".")[0])).toBeGreaterThanOrEqual(20);
  });

  it("type-checks as a strict TypeScript consumer resolves it (nodenext)", async () => {
    // skipLibCheck as most projects set it: the declarations were checked when built; this checks
    // that they resolve (no `.ts` specifiers) and type the handlers.
    await writeFile(join(project, "consumer.ts"), CONSUMER_TS);
    const compilerOptions = {
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      lib: ["es2023", "dom"],
      types: [],
    };
    await writeFile(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
    const tsc = join(PROJECT_ROOT, "node_modules", "typescript", "bin", "tsc");
    const checked = await run(nodeBinary(), [tsc, "-p", "tsconfig.json"], { cwd: project, timeout: STEP_TIMEOUT_MS }).catch(
      (error: { stdout?: string }) => ({ stdout: `failed: ${error.stdout}` }),
    );
    expect(checked.stdout).toBe("");
  });

  it("bundles for a platform without Node's modules (browsers, Workers, Deno)", async () => {
    const result = await build({
      stdin: { contents: 'export * from "@agent-platform/sdk";', resolveDir: project },
      bundle: true,
      platform: "neutral",
      mainFields: ["module", "main"],
      format: "esm",
      write: false,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    expect(result.outputFiles[0]!.text).not.toMatch(/from "node:|require\("/);
  });
});
