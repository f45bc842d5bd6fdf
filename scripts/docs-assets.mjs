// Puts the API reference's browser bundle where Workers static assets serve it from
// (`assets.directory` in wrangler.json): the exact version pinned in package.json, copied from
// node_modules so `/docs` never loads a script from a CDN. Run by wrangler before `dev` and
// `deploy` (`build.command`) and by the test configuration; Node standard library only.
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the assets directory is and what is served from it; src/api/system/docs.ts names the same path. */
export const ASSETS_DIRECTORY = join(root, ".generated", "assets");
export const REFERENCE_SCRIPT_PATH = "docs/assets/api-reference.js";

const PACKAGE = join(root, "node_modules", "@scalar", "api-reference");
const SOURCE = join(PACKAGE, "dist", "browser", "standalone.js");

/** Beside the assets directory, not in it, so no server lists a half-written file as an asset. */
const TEMPORARY_DIRECTORY = join(root, ".generated", "tmp");

/**
 * Writes `target` whole or not at all: the content goes to a file of this process's own, then
 * takes its name in one rename (the same file system). A server reading the assets meanwhile
 * (the test suites build them while others run) sees the old file or the new one, never half.
 * A target that already holds the same bytes is not touched: every `wrangler dev` watching the
 * assets restarts its Worker on a change, cutting the requests it is answering, and another
 * `wrangler dev` starting (its build command) would otherwise cause one for nothing.
 */
export function replaceFile(target, write) {
  mkdirSync(TEMPORARY_DIRECTORY, { recursive: true });
  const temporary = join(TEMPORARY_DIRECTORY, `${process.pid}-${basename(target)}`);
  try {
    write(temporary);
    if (sameBytes(temporary, target)) return;
    renameSync(temporary, target);
  } finally {
    rmSync(temporary, { force: true });
  }
}

function sameBytes(a, b) {
  try {
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false; // no target yet
  }
}

/** `replaceFile` with the bytes given. */
export function writeFileWhole(target, bytes) {
  replaceFile(target, (temporary) => writeFileSync(temporary, bytes));
}

export function prepareDocsAssets() {
  const target = join(ASSETS_DIRECTORY, REFERENCE_SCRIPT_PATH);
  mkdirSync(dirname(target), { recursive: true });
  try {
    replaceFile(target, (temporary) => copyFileSync(SOURCE, temporary));
  } catch (error) {
    throw new Error(`cannot copy the API reference bundle from ${SOURCE} (run npm ci): ${error.message}`);
  }
  const pinned = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies["@scalar/api-reference"];
  const installed = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")).version;
  if (installed !== pinned) throw new Error(`@scalar/api-reference ${installed} is installed but ${pinned} is pinned (run npm ci)`);
  return target;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) prepareDocsAssets();
