/**
 * `wrangler deploy --dry-run`: the Worker bundles for deployment as it is configured, and its
 * size stays within what Cloudflare accepts. The sizes go to the log of every run.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
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
