/**
 * Runs bench/evals.ts with Vite's module runner: the end-to-end support it builds on uses
 * extensionless TypeScript imports, which Node alone does not resolve.
 */
import { fileURLToPath } from "node:url";
import { runnerImport } from "vite";

const root = fileURLToPath(new URL("..", import.meta.url));
const { module } = await runnerImport("/bench/evals.ts", { root, configFile: false, logLevel: "error" });
await module.default();
process.exit(0);
