// Builds the console (console/src, Preact and TypeScript) into one minified script and one
// stylesheet where Workers static assets serve them (`/console/assets/`); src/api/system/console.ts
// serves the page that loads them. Run with docs-assets.mjs by build-assets.mjs; run alone,
// it prints the sizes.
import { mkdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { buildSync } from "esbuild";
import { ASSETS_DIRECTORY, writeFileWhole } from "./docs-assets.mjs";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..");

/** Where the bundle lands under the assets directory; src/api/system/console.ts names the same files. */
export const CONSOLE_ASSETS_PATH = "console/assets";
const ENTRY = join(root, "console", "src", "main.tsx");

/** Browsers of the last few years: native ES modules, `<dialog>`, `:focus-visible`. */
const TARGETS = ["chrome111", "edge111", "firefox114", "safari16.4"];

/**
 * Builds the bundle under `assetsDirectory` (the Worker's, by default); returns each written
 * file, relative to it, with its size and gzipped size in bytes.
 */
export function buildConsoleAssets(assetsDirectory = ASSETS_DIRECTORY) {
  const outdir = join(assetsDirectory, CONSOLE_ASSETS_PATH);
  const result = buildSync({
    entryPoints: { console: ENTRY },
    outdir,
    bundle: true,
    minify: true,
    format: "esm",
    target: TARGETS,
    jsx: "automatic",
    jsxImportSource: "preact",
    // The SDK from its source (sdk/package.json's exports), so the console needs no SDK build.
    conditions: ["@agent-platform/source"],
    tsconfig: join(root, "console", "tsconfig.json"),
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    // Written here, each file whole (writeFileWhole), for servers that read the assets meanwhile.
    write: false,
  });
  return result.outputFiles.map(({ path, contents: bytes }) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileWhole(path, bytes);
    return { file: relative(assetsDirectory, path), bytes: bytes.length, gzipBytes: gzipSync(bytes).length };
  });
}

export function describeSizes(files) {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  return files.map(({ file, bytes, gzipBytes }) => `${file}: ${kib(bytes)} (${kib(gzipBytes)} gzipped)`).join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(describeSizes(buildConsoleAssets()));
