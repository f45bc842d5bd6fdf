/**
 * An eval of 200 items against a real `wrangler dev` with the mock model, beside the same 200
 * sessions started by a client, one call each and polled to their end, at the same concurrency:
 * the wall time of each, and the platform's overhead per item in the eval (its polling, scoring
 * and bookkeeping). Self-contained on top of the end-to-end support (test/e2e/support).
 *
 *   node bench/evals.run.mjs
 *   BENCH_EVAL_ITEMS=50 BENCH_EVAL_CONCURRENCY=5 node bench/evals.run.mjs
 *
 * Numbers depend on the machine; run it on a quiet one.
 */
import { mapLimit } from "../test/e2e/support/pool";
import { startStack, uniqueName } from "../test/e2e/support/stack";

const ITEMS = Number(process.env.BENCH_EVAL_ITEMS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_EVAL_CONCURRENCY ?? 10);
const POLL_MS = 100;
const TIMEOUT_MS = 15 * 60_000;

interface EvalView {
  id: string;
  status: string;
  progress: { total: number; finished: number; running: number };
  scores: Record<string, number | null>;
}

export default async function main(): Promise<void> {
  const stack = await startStack({ limits: { max_concurrent_runs: CONCURRENCY, requests_per_minute: 100_000 } });
  try {
    const tenant = uniqueName("bench-evals");
    const author = await stack.client(tenant, "bench-author", ["sessions:read", "sessions:write", "agents:write"]);
    // Unscripted, the mock model answers "ok" at once: what is measured is the platform.
    const model = stack.mock.model(uniqueName("model"));
    const agent = await author.expect<{ id: string }>(201, "POST", "/v1/agents", { name: "bench", model: model.key });
    const items = Array.from({ length: ITEMS }, (_, i) => ({ input: `Item ${i}: say ok.`, expected: "ok" }));
    const dataset = await author.expect<{ id: string }>(201, "POST", "/v1/datasets", { name: "bench", items });

    // Warm-up: one session, so neither side pays the first isolate's start.
    const warm = await author.createSession({ agent: agent.id, input: "warm up" });
    await waitSession(author, warm.id);

    const evalStart = Date.now();
    const started = await author.expect<EvalView>(202, "POST", "/v1/evals", {
      agent: `${agent.id}@1`,
      dataset_id: dataset.id,
      scorers: [{ type: "contains" }, { type: "max_steps", max: 1 }],
      concurrency: CONCURRENCY,
    });
    let done: EvalView = started;
    while (done.status === "running" || done.progress.running > 0) {
      if (Date.now() - evalStart > TIMEOUT_MS) throw new Error(`eval still ${done.status}: ${JSON.stringify(done.progress)}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      done = await author.expect<EvalView>(200, "GET", `/v1/evals/${started.id}`);
    }
    const evalMs = Date.now() - evalStart;

    const directStart = Date.now();
    await mapLimit(items, CONCURRENCY, async (item) => {
      const session = await author.createSession({ agent: `${agent.id}@1`, input: item.input });
      await waitSession(author, session.id);
    });
    const directMs = Date.now() - directStart;

    const perItem = (ms: number) => (ms * CONCURRENCY) / ITEMS;
    const rows = [
      ["eval (POST /v1/evals, polled to its end)", evalMs, perItem(evalMs)],
      ["the same sessions started by a client, polled every 100 ms", directMs, perItem(directMs)],
    ] as const;
    console.log(`\n${ITEMS} items, concurrency ${CONCURRENCY}, mock model; eval ${done.status}, scores ${JSON.stringify(done.scores)}\n`);
    console.log("| run | wall time (s) | time per item (ms, wall × concurrency ÷ items) |");
    console.log("|---|---|---|");
    for (const [name, ms, item] of rows) console.log(`| ${name} | ${(ms / 1000).toFixed(1)} | ${item.toFixed(0)} |`);
    console.log(`\nPlatform overhead per item in the eval: ${(perItem(evalMs) - perItem(directMs)).toFixed(0)} ms`);
  } finally {
    await stack.dispose();
  }
}

async function waitSession(author: Awaited<ReturnType<Awaited<ReturnType<typeof startStack>>["client"]>>, id: string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const session = await author.getSession(id);
    if (["done", "failed", "cancelled"].includes(session.status)) return;
    if (Date.now() > deadline) throw new Error(`session ${id} still ${session.status}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
