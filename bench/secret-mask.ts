/**
 * The cost of masking MCP header values (src/shared/secret-mask.ts), which runs on every MCP
 * tool output: building a server's masker, masking outputs of 2 KB and 1 MB with 5 secrets (with
 * and without secrets in them), and a log line with 256 servers' secrets in the isolate. The
 * exact-match split/join masking the shared masker replaced is measured beside it.
 * Run: `npx node bench/secret-mask.run.mjs`.
 */
import { MASKED_VALUE, maskerOf, maskForLogs, SecretMasker, secretForms } from "../src/shared/secret-mask";
import { headerSecrets } from "../src/session-config/masking";
import { leakedForms } from "../test/support/secret-forms";

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(runs: number, work: () => unknown): { median: number; min: number } {
  for (let i = 0; i < Math.min(runs, 5); i++) work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return { median: median(times), min: Math.min(...times) };
}

/** Text that looks like a tool's output: words, numbers, JSON and base64 runs, 80-character lines. */
function filler(chars: number): string {
  const words = [
    "the",
    "result",
    "of",
    "query",
    "row",
    "id",
    "value",
    '{"a":1,"b":[2,3]}',
    "dGhpcyBpcyBub3QgYSBzZWNyZXQ=",
    "0x1f2e3d4c",
    "ok",
    "status",
  ];
  let out = "";
  let line = 0;
  while (out.length < chars) {
    const word = words[(out.length * 7 + line) % words.length]!;
    out += word;
    line += word.length + 1;
    if (line > 80) {
      out += "\n";
      line = 0;
    } else out += " ";
  }
  // A flat string, as a decoded response body is (not a rope of concatenations).
  return new TextDecoder().decode(new TextEncoder().encode(out.slice(0, chars)));
}

function exactOnly(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(MASKED_VALUE);
  return out;
}

export default function main(): void {
  // Five header values, as a session's MCP servers give them; the masker also takes each credential without its scheme.
  const values = [
    `Bearer sk-${crypto.randomUUID()}`,
    `sk-${crypto.randomUUID()}`,
    `key_${crypto.randomUUID().replace(/-/g, "")}`,
    crypto.randomUUID(),
    `Basic ${btoa("svc:" + crypto.randomUUID())}`,
  ];
  const secrets = headerSecrets(Object.fromEntries(values.map((value, i) => [`h${i}`, value])));
  const forms = secrets.flatMap(secretForms).length;
  const build = time(200, () => new SecretMasker(secrets));
  const masker = new SecretMasker(secrets);
  const small = filler(2 * 1024);
  const clean = filler(1024 * 1024);
  // 5 secrets, each in all of its leaked forms, spread over the megabyte.
  const leaks = values.flatMap((secret) => leakedForms(secret).map(([, form]) => form));
  const step = Math.floor(clean.length / leaks.length);
  let dirty = "";
  for (let i = 0; i < leaks.length; i++) dirty += clean.slice(i * step, (i + 1) * step - leaks[i]!.length) + leaks[i];
  dirty = new TextDecoder().decode(new TextEncoder().encode(dirty));
  const masked = masker.mask(dirty);
  const rows: [string, { median: number; min: number }][] = [
    [`build a masker: 5 header values (${secrets.length} secrets), ${forms} forms`, build],
    ["mask 2 KB, no secret in it", time(2000, () => masker.mask(small))],
    ["mask 1 MB, no secret in it", time(30, () => masker.mask(clean))],
    [`mask 1 MB with ${leaks.length} leaked forms of the 5 values`, time(30, () => masker.mask(dirty))],
    [`exact-only split/join (before), 1 MB, ${secrets.length} secrets`, time(30, () => exactOnly(dirty, secrets))],
  ];
  for (let i = 0; i < 255; i++) maskerOf([`tok-${crypto.randomUUID()}`, `key-${crypto.randomUUID()}`]);
  maskerOf(secrets);
  const line = JSON.stringify({ level: "warn", event: "mcp_discovery_failed", tenant_id: "t-1", session_id: "ses_x", reason: filler(300) });
  maskForLogs(line);
  const rebuilds: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    maskerOf([`tok-${crypto.randomUUID()}`, `key-${crypto.randomUUID()}`]);
    maskForLogs(line);
    rebuilds.push(performance.now() - start);
  }
  rows.push([
    "a new server in a full isolate: its masker built, added to the log masker, one log line",
    { median: median(rebuilds), min: Math.min(...rebuilds) },
  ]);
  rows.push(["a 400-byte log line, 256 servers' secrets in the isolate", time(2000, () => maskForLogs(line))]);
  console.log(`masked output keeps ${masked.length} of ${dirty.length} characters; ${masked.split(MASKED_VALUE).length - 1} masks`);
  console.log("| what | median ms | min ms |\n| --- | ---: | ---: |");
  for (const [what, t] of rows) console.log(`| ${what} | ${t.median.toFixed(3)} | ${t.min.toFixed(3)} |`);
}
