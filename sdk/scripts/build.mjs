/**
 * `npm run build` (and `npm pack`, through `prepack`): the package's dist/, ESM JavaScript and
 * declarations from src/. tsc rewrites the source's `.ts` import specifiers to `.js` in the
 * JavaScript but not in the declarations, so they are rewritten here: a consumer's TypeScript
 * then resolves them without `allowImportingTsExtensions`.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const sdk = fileURLToPath(new URL("..", import.meta.url));
const dist = join(sdk, "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", join(sdk, "tsconfig.build.json")], { stdio: "inherit" });

/** A relative specifier ending in `.ts`, in `from "…"` or `import("…")`. */
const TS_SPECIFIER = /((?:from |import\()["']\.{1,2}\/[^"']*)\.ts(["'])/g;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
  const path = join(entry.parentPath, entry.name);
  const text = readFileSync(path, "utf8");
  const rewritten = text.replace(TS_SPECIFIER, "$1.js$2");
  if (rewritten !== text) writeFileSync(path, rewritten);
}
