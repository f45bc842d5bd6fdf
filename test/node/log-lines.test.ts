/**
 * One way to the console in src/: `log` (src/log.ts), which masks every line with the secrets
 * the isolate uses. A direct console call would skip that redaction.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const src = join(root, "src");
const LOGGER = join(src, "log.ts");
const CONSOLE_CALL = /\bconsole\s*\.\s*(?:log|info|warn|error|debug|trace|dir|table)\s*\(/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("log lines of src/", () => {
  it("reach the console only through log(), which masks them", () => {
    const direct = sourceFiles(src)
      .filter((file) => file !== LOGGER)
      .flatMap((file) => [...readFileSync(file, "utf8").matchAll(CONSOLE_CALL)].map((match) => `${relative(root, file)}: ${match[0]}`));
    expect(direct).toEqual([]);
  });
});
