/**
 * `wrangler deploy --dry-run`: the Worker bundles for deployment as it is configured, and its
 * size stays within what Cloudflare accepts. The sizes go to the log of every run.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
/** The Workers Free plan's limit on a compressed Worker; the paid plans allow 10 MiB. */
const MAX_GZIP_KIB = 3 * 1024;
const SIZE_LINE = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/;

describe("wrangler deploy --dry-run", () => {
  let outdir: string | undefined;
  afterAll(async () => {
    if (outdir) await rm(outdir, { recursive: true, force: true });
  });

  it("bundles the Worker within the size a Free plan accepts", async () => {
    outdir = await mkdtemp(join(tmpdir(), "agent-platform-dry-run-"));
    const { stdout } = await promisify(execFile)(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", outdir], {
      cwd: root,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_SEND_ERROR_REPORTS: "false", WRANGLER_HIDE_BANNER: "true" },
    });
    const [, total, gzip] = SIZE_LINE.exec(stdout) ?? [];
    expect(gzip, stdout).toBeDefined();
    const assets = /Read (\d+) files? from the assets directory/.exec(stdout)?.[1] ?? "no";
    console.log(`Worker bundle: ${total} KiB, ${gzip} KiB gzipped; ${assets} static asset files beside it`);
    expect(Number(gzip)).toBeLessThan(MAX_GZIP_KIB);
    expect((await stat(join(outdir, "index.js"))).size).toBeGreaterThan(0);
  }, 120_000);
});

interface Migration {
  tag: string;
  new_sqlite_classes?: string[];
  renamed_classes?: { from: string; to: string }[];
  deleted_classes?: string[];
}

describe("the Durable Object migrations", () => {
  it("bring every exported object class into being, keep each class's storage through a rename, and delete none", async () => {
    const config = JSON.parse(await readFile(join(root, "wrangler.json"), "utf8")) as {
      migrations: Migration[];
      durable_objects: { bindings: { name: string; class_name: string }[] };
    };
    const classes = new Set<string>();
    const renames: string[] = [];
    for (const migration of config.migrations) {
      expect(migration.deleted_classes ?? [], `${migration.tag} deletes a class and its storage`).toEqual([]);
      for (const name of migration.new_sqlite_classes ?? []) classes.add(name);
      for (const { from, to } of migration.renamed_classes ?? []) {
        expect(classes.has(from), `${migration.tag} renames ${from}, which no earlier migration created`).toBe(true);
        classes.delete(from);
        classes.add(to);
        renames.push(`${from} -> ${to}`);
      }
    }
    const entry = await readFile(join(root, "src", "index.ts"), "utf8");
    const exported = [...entry.matchAll(/^export \{ (\w+) \} from/gm)].map((match) => match[1]);
    expect([...classes].sort()).toEqual(exported.sort());
    expect(config.durable_objects.bindings.map((binding) => binding.class_name).sort()).toEqual(exported.sort());
    // The per-session object was first deployed as `Agent`: its sessions must follow it.
    expect(renames).toContain("Agent -> SessionObject");
  });
});
