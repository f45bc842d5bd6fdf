/**
 * The session object's rules kept in one place each, checked on the source: the session's
 * existence is read by the engine's check alone (`engine/gone.ts`), a run slot is claimed through
 * `slots.goOn` alone, and the whole engine is named by few files (the rest take narrow hosts).
 * A new site anywhere else fails.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The files of src/ whose code (comments left out) matches `pattern`. */
function filesMatching(pattern: RegExp): string[] {
  return sourceFiles(join(root, "src"))
    .filter((file) => pattern.test(readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")))
    .map((file) => relative(root, file));
}

describe("the session object's rules, one place each", () => {
  it("reads the session's existence in the engine's check alone", () => {
    expect(filesMatching(/\.exists\(\)/)).toEqual(["src/sessions/object/engine/gone.ts"]);
  });

  it("claims a run slot through slots.goOn alone", () => {
    expect(filesMatching(/\bclaimChecked\b|#claim\(/)).toEqual(["src/sessions/object/engine/slots.ts"]);
  });

  it("names the whole engine in the engine, the door that makes it, the alarm that runs its units and the boot that wires it", () => {
    expect(filesMatching(/\bSessionEngine\b/).sort()).toEqual([
      "src/sessions/object/control/boot.ts",
      "src/sessions/object/control/wake.ts",
      "src/sessions/object/engine/engine.ts",
      "src/sessions/object/session-object.ts",
    ]);
  });
});
