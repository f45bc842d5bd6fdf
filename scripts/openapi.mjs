/**
 * `npm run openapi`: writes openapi/openapi.json from the routes' zod schemas. Vite loads the
 * TypeScript sources (their extensionless imports need a bundler's resolution); with `--check`
 * it only reports whether the committed file is current.
 */
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { runnerImport } from "vite";

const root = fileURLToPath(new URL("..", import.meta.url));
const target = fileURLToPath(new URL("../openapi/openapi.json", import.meta.url));
const check = process.argv.includes("--check");

/**
 * Building the document never runs a Durable Object, but their modules are imported along the
 * way; Node has no `cloudflare:workers`, so it gets empty stand-ins for the classes.
 */
const WORKERS_SHIM_ID = "\0cloudflare-workers-shim";
const workersShim = {
  name: "cloudflare-workers-shim",
  resolveId: (id) => (id === "cloudflare:workers" ? WORKERS_SHIM_ID : null),
  load: (id) =>
    id === WORKERS_SHIM_ID
      ? "export class DurableObject {}\nexport class WorkerEntrypoint {}\nexport class RpcTarget {}\nexport const env = {};\n"
      : null,
};

/**
 * The code tool's interpreter is a WebAssembly module that the Worker's bundler compiles ahead of
 * time; the document never runs it, so Node gets a stand-in instead of the file.
 */
const WASM_SHIM_ID = "\0quickjs-wasm-shim";
const wasmShim = {
  name: "quickjs-wasm-shim",
  enforce: "pre",
  resolveId: (id) => (id === "@jitl/quickjs-wasmfile-release-sync/wasm" ? WASM_SHIM_ID : null),
  load: (id) => (id === WASM_SHIM_ID ? "export default null;\n" : null),
};

const { module } = await runnerImport("/src/api/document.ts", {
  root,
  configFile: false,
  logLevel: "error",
  plugins: [workersShim, wasmShim],
});
const text = module.serializeOpenApiDocument(module.buildOpenApiDocument());

if (check) {
  const committed = await readFile(target, "utf8").catch(() => "");
  if (committed !== text) {
    console.error("openapi/openapi.json is out of date; run `npm run openapi`.");
    process.exit(1);
  }
  console.log("openapi/openapi.json is current.");
} else {
  await mkdir(fileURLToPath(new URL("../openapi/", import.meta.url)), { recursive: true });
  await writeFile(target, text);
  console.log(`wrote ${target}`);
}
