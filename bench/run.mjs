/**
 * `npm run bench`: loads the TypeScript benchmark (`bench/main.ts`, or the file given first)
 * through Vite's module runner, as `scripts/openapi.mjs` does, since the shared end-to-end
 * support it imports uses extensionless imports and TypeScript-only syntax.
 */
import { fileURLToPath } from "node:url";
import { runnerImport } from "vite";

const root = fileURLToPath(new URL("..", import.meta.url));
const entry = process.argv[2]?.endsWith(".ts") ? `/${process.argv.splice(2, 1)[0]}` : "/bench/main.ts";
await runnerImport(entry, { root, configFile: false, logLevel: "error" });
