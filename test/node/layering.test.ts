/**
 * The layering of src/: the gateway (src/api) may import any module, and nothing outside it
 * imports the gateway, so the session operations, the schedules and the objects run without
 * it. The Worker's entry point (src/index.ts) is the one module that mounts it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const src = join(root, "src");
const api = join(src, "api");
const ENTRY = join(src, "index.ts");

/** Static imports and re-exports (`from "…"`, type-only too), side-effect imports and dynamic `import("…")`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The relative imports of `file` that land in src/api, as `file → target` lines. */
function gatewayImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(SPECIFIER)]
    .map((match) => match[1]!)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => resolve(dirname(file), specifier))
    .filter((target) => target === api || target.startsWith(api + "/"))
    .map((target) => `${relative(root, file)} → ${relative(root, target)}`);
}

describe("layering of src/", () => {
  const outside = sourceFiles(src).filter((file) => !file.startsWith(api + "/"));

  it("finds the entry point's import of the gateway, so the scan sees imports at all", () => {
    expect(gatewayImports(ENTRY)).toEqual(["src/index.ts → src/api/app"]);
    expect(outside.length).toBeGreaterThan(100);
  });

  it("has no module outside src/api import src/api, apart from the entry point", () => {
    const offending = outside.filter((file) => file !== ENTRY).flatMap(gatewayImports);
    expect(offending).toEqual([]);
  });
});
