/**
 * The rules `npm run lint:deps` enforces, run against a small tree of their own so that each is
 * seen to refuse a violation and to pass once it is gone: the folder layers of
 * .dependency-cruiser.cjs (a folder imports only folders below it, so no two form a cycle) and
 * scripts/file-lengths.mjs (no file of src/ over 400 lines).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
let tree: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(tree, path)), { recursive: true });
  writeFileSync(join(tree, path), text);
}

function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: tree, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const depcruise = () => run(join(root, "node_modules/.bin/depcruise"), ["src", "--config", join(root, ".dependency-cruiser.cjs")]);
const fileLengths = () => run(process.execPath, [join(root, "scripts/file-lengths.mjs"), "src"]);

beforeEach(() => {
  tree = mkdtempSync(join(tmpdir(), "dependency-rules-"));
  write("tsconfig.json", JSON.stringify({ compilerOptions: { module: "esnext", moduleResolution: "bundler", strict: true } }));
  write("src/shared/low.ts", "export const low = 1;\n");
  write("src/api/high.ts", 'import { low } from "../shared/low";\nexport const high = low + 1;\n');
});

afterEach(() => rmSync(tree, { recursive: true, force: true }));

describe("the folder layers", { timeout: 60_000 }, () => {
  it("pass a tree whose imports all point down", () => {
    const { status, output } = depcruise();
    expect(output).toContain("no dependency violations found");
    expect(status).toBe(0);
  });

  it("refuse an import from a folder to one above it, type-only too, naming the rule and the import", () => {
    write("src/shared/up.ts", 'import type { high } from "../api/high";\nexport type Up = typeof high;\n');
    const { status, output } = depcruise();
    expect(status).not.toBe(0);
    expect(output).toContain("layer:shared");
    expect(output).toContain("src/shared/up.ts → src/api/high.ts");
  });

  it("refuse a top-level folder the layer list does not place", () => {
    write("src/elsewhere/thing.ts", 'import { low } from "../shared/low";\nexport const thing = low;\n');
    const { status, output } = depcruise();
    expect(status).not.toBe(0);
    expect(output).toContain("layer:unlisted");
  });
});

describe("the file length rule", { timeout: 60_000 }, () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const x${i} = ${i};`).join("\n") + "\n";

  it("passes a file of exactly 400 lines", () => {
    write("src/shared/long.ts", lines(400));
    const { status, output } = fileLengths();
    expect(output).toContain("no file of src/ over 400 lines");
    expect(status).toBe(0);
  });

  it("refuses a file of 401 lines, naming it and its length", () => {
    write("src/shared/long.ts", lines(401));
    const { status, output } = fileLengths();
    expect(status).toBe(1);
    expect(output).toContain("src/shared/long.ts: 401 lines");
  });
});
