#!/usr/bin/env node
/**
 * Every Durable Object stub of src/ comes from src/objects.ts (`npm run lint:deps`), the one place
 * that narrows a tenant's namespaces to its jurisdiction: anywhere else, an id made from a name
 * or a string, a unique id, a `getByName` or a `jurisdiction()` would address an object the
 * tenant's residency does not cover. Usage: node scripts/object-access.mjs [folder, default src].
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** The one module allowed to address objects; paths relative to the folder checked. */
export const OBJECT_MODULE = "objects.ts";
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
/** The namespace calls that pick an object or a jurisdiction. */
const ADDRESSING = /\.(idFromName|idFromString|newUniqueId|getByName|jurisdiction)\s*\(/;
/** Every Durable Object binding wrangler.json declares (a new one is covered the day it is added), read as a property of an environment. */
const WRANGLER = JSON.parse(readFileSync(new URL("../wrangler.json", import.meta.url), "utf8"));
const BINDING_NAMES = WRANGLER.durable_objects.bindings.map((binding) => binding.name);
const BINDING = new RegExp(`\\benv\\??\\.(${BINDING_NAMES.join("|")})\\b`);

/** `[path, line number, line]` of each use of a namespace outside `objects.ts` under `dir`. */
export function directObjectAccess(dir) {
  const walk = (d) =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : SOURCE.test(e.name) ? [join(d, e.name)] : [],
    );
  const found = [];
  for (const file of walk(dir)) {
    if (relative(dir, file).split(sep).join("/") === OBJECT_MODULE) continue;
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (ADDRESSING.test(line) || BINDING.test(line)) found.push([file, i + 1, line.trim()]);
      });
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? "src";
  const found = directObjectAccess(dir);
  if (found.length > 0) {
    console.error(`✘ ${found.length} use(s) of a Durable Object namespace outside ${dir}/${OBJECT_MODULE} (get the stub from there):`);
    for (const [file, line, text] of found) console.error(`  ${relative(process.cwd(), file)}:${line}: ${text}`);
    process.exit(1);
  }
  console.log(`✔ every Durable Object of ${dir}/ is addressed through ${dir}/${OBJECT_MODULE}`);
}
