// Puts the API reference's browser bundle where Workers static assets serve it from
// (`assets.directory` in wrangler.json): the exact version pinned in package.json, copied from
// node_modules so `/docs` never loads a script from a CDN. Run by wrangler before `dev` and
// `deploy` (`build.command`) and by the test configuration; Node standard library only.
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the assets directory is and what is served from it; src/api/system/docs.ts names the same path. */
export const ASSETS_DIRECTORY = join(root, ".generated", "assets");
export const REFERENCE_SCRIPT_PATH = "docs/assets/api-reference.js";

const PACKAGE = join(root, "node_modules", "@scalar", "api-reference");
const SOURCE = join(PACKAGE, "dist", "browser", "standalone.js");

export function prepareDocsAssets() {
  const target = join(ASSETS_DIRECTORY, REFERENCE_SCRIPT_PATH);
  mkdirSync(dirname(target), { recursive: true });
  try {
    copyFileSync(SOURCE, target);
  } catch (error) {
    throw new Error(`cannot copy the API reference bundle from ${SOURCE} (run npm ci): ${error.message}`);
  }
  const pinned = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies["@scalar/api-reference"];
  const installed = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")).version;
  if (installed !== pinned) throw new Error(`@scalar/api-reference ${installed} is installed but ${pinned} is pinned (run npm ci)`);
  return target;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) prepareDocsAssets();
