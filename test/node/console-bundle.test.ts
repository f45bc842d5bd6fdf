/**
 * The console's bundle stays small: measured as it is built for the Worker's assets. The budget
 * is what a view costs to open: the first view loads the entry and the chunks it imports at
 * once; each lazily loaded page adds its chunk and the shared chunks it imports that the entry
 * did not already load.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type BuiltFile, buildConsoleAssets, describeSizes } from "../../scripts/console-assets.mjs";

/** Preact, the SDK's client, the sessions views and the shell; a framework twice Preact's size would not fit. */
const MAX_FIRST_VIEW_GZIP_BYTES = 32 * 1024;
/** One more page on top of what the first view loaded (the agents page carries the line diff). */
const MAX_PAGE_GZIP_BYTES = 10 * 1024;
const MAX_STYLE_GZIP_BYTES = 6 * 1024;

const ENTRY = "console/assets/console.js";

/** Every file `from` loads at once, itself included. */
function loadedAtOnce(files: Map<string, BuiltFile>, from: string, seen = new Set<string>()): Set<string> {
  if (seen.has(from)) return seen;
  seen.add(from);
  for (const imported of files.get(from)?.imports ?? []) if (!imported.dynamic) loadedAtOnce(files, imported.file, seen);
  return seen;
}

function gzipOf(files: Map<string, BuiltFile>, names: Iterable<string>): number {
  return [...names].reduce((sum, name) => sum + (files.get(name)?.gzipBytes ?? 0), 0);
}

describe("the console bundle", () => {
  // Not the Worker's own assets directory: the Workers tests may be reading it meanwhile.
  const directory = mkdtempSync(join(tmpdir(), "console-bundle-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("opens its first view and each lazily loaded page within their gzipped budgets", () => {
    const built = buildConsoleAssets(directory);
    const sizes = describeSizes(built);
    const files = new Map(built.map((file) => [file.file, file]));
    expect(files.has(ENTRY), sizes).toBe(true);
    const first = loadedAtOnce(files, ENTRY);
    expect(gzipOf(files, first), sizes).toBeLessThan(MAX_FIRST_VIEW_GZIP_BYTES);

    const pages = [
      ...new Set(built.flatMap((file) => file.imports.filter((imported) => imported.dynamic).map((imported) => imported.file))),
    ];
    expect(pages.length, sizes).toBeGreaterThanOrEqual(5);
    for (const page of pages) {
      const extra = [...loadedAtOnce(files, page)].filter((name) => !first.has(name));
      expect(gzipOf(files, extra), `${page}\n${sizes}`).toBeLessThan(MAX_PAGE_GZIP_BYTES);
    }
    // Every script is the entry, a page, or a chunk one of them loads: nothing is built and never used.
    const reachable = new Set([...first, ...pages.flatMap((page) => [...loadedAtOnce(files, page)])]);
    expect(built.filter((file) => file.file.endsWith(".js") && !reachable.has(file.file)).map((file) => file.file)).toEqual([]);

    const style = files.get("console/assets/console.css");
    expect(style!.gzipBytes, sizes).toBeLessThan(MAX_STYLE_GZIP_BYTES);
  });
});
