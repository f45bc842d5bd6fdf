/**
 * scripts/object-access.mjs (`npm run lint:deps`): every Durable Object of src/ is addressed
 * through src/objects.ts, which places a tenant's objects in its jurisdiction; any other use of
 * a namespace is refused, with its file and line.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

describe("scripts/object-access.mjs", { timeout: 60_000 }, () => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  let tree: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  };
  const lint = () => {
    const result = spawnSync(process.execPath, [join(root, "scripts/object-access.mjs"), "src"], { cwd: tree, encoding: "utf8" });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  };
  beforeEach(() => {
    tree = mkdtempSync(join(tmpdir(), "object-access-"));
    write("src/objects.ts", "export const stub = (env: any) => env.SESSION.get(env.SESSION.idFromName('x'));\n");
    write("src/api/route.ts", 'import { stub } from "../objects";\nexport const s = stub;\n');
  });
  afterEach(() => rmSync(tree, { recursive: true, force: true }));

  it("passes a tree whose namespaces are used in objects.ts alone, and the platform's own src/", () => {
    expect(lint().status).toBe(0);
    const own = spawnSync(process.execPath, [join(root, "scripts/object-access.mjs"), "src"], { cwd: root, encoding: "utf8" });
    expect(own.status).toBe(0);
  });

  it.each([
    ["an id from a name", "export const s = (ns: any) => ns.get(ns.idFromName('t'));\n"],
    ["an id from a string", "export const s = (ns: any, id: string) => ns.get(ns.idFromString(id));\n"],
    ["a unique id", "export const s = (ns: any) => ns.newUniqueId({ jurisdiction: 'eu' });\n"],
    ["a namespace of its own choosing", "export const s = (ns: any) => ns.jurisdiction('eu');\n"],
    ["a binding read from the environment", "export const s = (env: any) => env.VAULT;\n"],
  ])("refuses %s anywhere else, naming the file and line", (_what, text) => {
    write("src/sessions/direct.ts", `// a module\n${text}`);
    const { status, output } = lint();
    expect(status).not.toBe(0);
    expect(output).toContain("src/sessions/direct.ts:2");
  });
});
