// The Worker's static assets, built before `wrangler dev` and `deploy` (wrangler.json
// `build.command`) and by the test configuration: the API reference's bundle for `/docs` and
// the console's for `/console`. Quiet: wrangler prints its build step's line itself.
import { fileURLToPath } from "node:url";
import { buildConsoleAssets } from "./console-assets.mjs";
import { prepareDocsAssets } from "./docs-assets.mjs";

export function buildAssets() {
  prepareDocsAssets();
  buildConsoleAssets();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) buildAssets();
