/** The console's bundle stays small: measured as it is built for the Worker's assets. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildConsoleAssets, describeSizes } from "../../scripts/console-assets.mjs";

/** Preact, the SDK's client and the console itself; a framework twice Preact's size would not fit. */
const MAX_SCRIPT_GZIP_BYTES = 32 * 1024;
const MAX_STYLE_GZIP_BYTES = 6 * 1024;

describe("the console bundle", () => {
  // Not the Worker's own assets directory: the Workers tests may be reading it meanwhile.
  const directory = mkdtempSync(join(tmpdir(), "console-bundle-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("is one script and one stylesheet within their gzipped budgets", () => {
    const files = buildConsoleAssets(directory);
    const script = files.find((file) => file.file.endsWith("console.js"));
    const style = files.find((file) => file.file.endsWith("console.css"));
    expect(files.map((file) => file.file).sort(), describeSizes(files)).toEqual(["console/assets/console.css", "console/assets/console.js"]);
    expect(script!.gzipBytes, describeSizes(files)).toBeLessThan(MAX_SCRIPT_GZIP_BYTES);
    expect(style!.gzipBytes, describeSizes(files)).toBeLessThan(MAX_STYLE_GZIP_BYTES);
  });
});
