/**
 * Exports of large sessions in a loop, and another tenant's requests meanwhile, against a real
 * `wrangler dev`: one tenant's session of about 4 MB (ten runs of 190,000 characters in and out),
 * exported by two loops at once, first with no export rate (`exports_per_minute` raised: the
 * bounded pages alone), then at the default rate of 10 a minute; the other tenant asks for its
 * tenant record one request after another throughout. Reports the other tenant's median and p99
 * alone and during each phase, and the exports made and refused.
 *
 *   npx node bench/export-load.run.mjs
 *
 * Numbers depend on the machine; run it on a quiet one.
 */
import { BUILTIN_DEFAULT_LIMITS } from "../src/limits";
import type { ApiClient } from "../test/e2e/support/api-client";
import { say, waitForStatus } from "../test/e2e/support/scenario";
import { startStack, uniqueName } from "../test/e2e/support/stack";

const MESSAGE_CHARS = 190_000;
const RUNS = 10;
const ALONE_MS = 5_000;
const PHASE_MS = 15_000;
const LOOPS = 2;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? Number.NaN;
}

/** The bystander's latencies while `work` runs. */
async function timed(bystander: ApiClient, work: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let over = false;
  const asking = (async () => {
    while (!over) {
      const started = performance.now();
      const res = await bystander.request("GET", "/v1/tenant").catch(() => null);
      latencies.push(res?.status === 200 ? performance.now() - started : Number.POSITIVE_INFINITY);
    }
  })();
  try {
    await work();
  } finally {
    over = true;
    await asking;
  }
  return latencies;
}

/** Exports in `LOOPS` loops for `PHASE_MS`: how many answered 200 (and their bytes), how many 429. */
async function exportLoops(client: ApiClient, id: string): Promise<{ ok: number; refused: number; bytes: number }> {
  const counts = { ok: 0, refused: 0, bytes: 0 };
  const until = Date.now() + PHASE_MS;
  await Promise.all(
    Array.from({ length: LOOPS }, async () => {
      while (Date.now() < until) {
        const res = await client.request("GET", `/v1/sessions/${id}/export`);
        if (res.status === 200) {
          counts.ok++;
          counts.bytes += res.text.length;
        } else if (res.status === 429) {
          counts.refused++;
          // A client that honours Retry-After would wait; a hostile one asks again at once.
        } else throw new Error(`export answered ${res.status}: ${res.text.slice(0, 300)}`);
      }
    }),
  );
  return counts;
}

export default async function main(): Promise<void> {
  const stack = await startStack({ limits: { exports_per_minute: 1_000_000, max_tokens_per_session: 100_000_000 } });
  try {
    const tenant = uniqueName("exporter");
    const exporter = await stack.client(tenant);
    const admin = await stack.client(uniqueName("operator"), "operator", ["platform:admin"]);
    const bystander = await stack.client(uniqueName("bystander"));
    const model = stack.mock.model(uniqueName("model"));
    await model.script(...Array.from({ length: RUNS }, (_, i) => say(String.fromCharCode(97 + i).repeat(MESSAGE_CHARS))));
    const session = await exporter.createSession({ input: "x".repeat(MESSAGE_CHARS), model: model.key });
    await waitForStatus(exporter, session.id, (s) => s.status === "done", 120_000);
    for (let run = 1; run < RUNS; run++) {
      await exporter.expect(202, "POST", `/v1/sessions/${session.id}/messages`, { input: "y".repeat(MESSAGE_CHARS) });
      await waitForStatus(exporter, session.id, (s) => s.status === "done", 120_000);
    }
    const size = (await exporter.request("GET", `/v1/sessions/${session.id}/export`)).text.length;
    await bystander.request("GET", "/v1/tenant");

    const alone = await timed(bystander, () => new Promise((resolve) => setTimeout(resolve, ALONE_MS)));
    let unbounded = { ok: 0, refused: 0, bytes: 0 };
    const duringUnlimited = await timed(bystander, async () => {
      unbounded = await exportLoops(exporter, session.id);
    });
    await admin.expect(200, "PUT", `/v1/admin/tenants/${tenant}/limits`, { exports_per_minute: BUILTIN_DEFAULT_LIMITS.exports_per_minute });
    // The first phase's exports were counted in this minute's window too: the second starts with the next window.
    await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 100));
    let limited = { ok: 0, refused: 0, bytes: 0 };
    const duringLimited = await timed(bystander, async () => {
      limited = await exportLoops(exporter, session.id);
    });

    const row = (what: string, latencies: number[], extra: string) =>
      `| ${what} | ${latencies.length} | ${percentile(latencies, 0.5).toFixed(0)} | ${percentile(latencies, 0.99).toFixed(0)} | ${extra} |`;
    console.log(`session export: ${(size / 1e6).toFixed(2)} MB; ${LOOPS} export loops for ${PHASE_MS / 1000} s per phase`);
    console.log("| phase | bystander requests | median ms | p99 ms | exports |");
    console.log("| --- | ---: | ---: | ---: | --- |");
    console.log(row("alone", alone, "none"));
    console.log(row("exports, no rate", duringUnlimited, `${unbounded.ok} made (${(unbounded.bytes / 1e6).toFixed(0)} MB)`));
    console.log(
      row(
        `exports at ${BUILTIN_DEFAULT_LIMITS.exports_per_minute} a minute`,
        duringLimited,
        `${limited.ok} made, ${limited.refused} refused with 429`,
      ),
    );
  } finally {
    await stack.dispose();
  }
}
