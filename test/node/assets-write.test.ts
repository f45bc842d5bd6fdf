/**
 * The build of the Worker's static assets leaves a file that already holds the same bytes
 * untouched: every `wrangler dev` watching the assets directory restarts its Worker on a change
 * and cuts the requests in flight ("Your worker restarted mid-request"), and each one that starts
 * runs the build.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { writeFileWhole } from "../../scripts/docs-assets.mjs";

describe("an asset written by the build", () => {
  // On the file system of the build's own temporary files, as the assets directory is.
  const generated = join(dirname(fileURLToPath(import.meta.url)), "..", "..", ".generated");
  mkdirSync(generated, { recursive: true });
  const directory = mkdtempSync(join(generated, "assets-write-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("is not touched when it holds the same bytes, and replaced whole when it does not", () => {
    const target = join(directory, "console.js");
    writeFileSync(target, "export {};\n");
    const before = statSync(target, { bigint: true });
    writeFileWhole(target, new TextEncoder().encode("export {};\n"));
    const same = statSync(target, { bigint: true });
    expect([same.ino, same.mtimeNs]).toEqual([before.ino, before.mtimeNs]);

    writeFileWhole(target, new TextEncoder().encode("export const x = 1;\n"));
    const changed = statSync(target, { bigint: true });
    expect(changed.ino).not.toBe(before.ino); // a new file took the name, in one rename
    expect(readFileSync(target, "utf8")).toBe("export const x = 1;\n");
  });
});
