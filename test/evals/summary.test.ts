/**
 * An eval's summary from its items' totals, summed in SQL (src/evals/store/evals.ts `itemTotals`):
 * the same means, progress, costs and duration as the items themselves give, without reading any
 * item's copy of its dataset item (up to 64 KiB each) into memory.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { agentStoreStub } from "../../src/objects";
import { summaryOf } from "../../src/evals/results";
import { type EvalRow, items, itemTotals } from "../../src/evals/store/evals";
import { freshTenant } from "../support/tokens";

const CREATED = 1_000_000;
/** Per item: status, scores by key, cost, judge cost, start and end (ms after the eval's creation). */
const ITEMS = [
  { status: "done", scores: { exact: 1, judge: 0.5 }, cost: 0.001, judge: 0.0002, started: 10, finished: 400 },
  { status: "done", scores: { exact: 0, judge: null }, cost: 0.002, judge: null, started: 20, finished: 900 },
  { status: "failed", scores: {}, cost: null, judge: null, started: 30, finished: 100 },
  { status: "judging", scores: { exact: 1 }, cost: 0.0005, judge: null, started: 40, finished: null },
  { status: "running", scores: {}, cost: null, judge: null, started: 950, finished: null },
  { status: "pending", scores: {}, cost: null, judge: null, started: null, finished: null },
] as const;

describe("an eval's summary", () => {
  it("is what its items give, summed in SQL", async () => {
    const tenantId = freshTenant("eval-sum");
    const store = agentStoreStub(env, tenantId);
    // Any call migrates the store.
    await store.evals(tenantId, "createDataset", { name: "d", items: [{ input: "hi" }], createdBy: "u", now: CREATED });
    await runInDurableObject(store, async (_instance, state) => {
      const sql = state.storage.sql;
      const config = {
        agent: { agent_id: "agt_x", version: 1, ref: "1" },
        dataset_id: "ds_x",
        dataset_version: 1,
        scorers: [],
        scorer_keys: ["exact", "judge", "unused"],
        concurrency: 2,
        creator: { subject: "u" },
      };
      sql.exec(
        "INSERT INTO evals (id, config, status, error, created_by, created_at, finished_at) VALUES ('ev_1', ?, 'done', NULL, 'u', ?, NULL)",
        JSON.stringify(config),
        CREATED,
      );
      ITEMS.forEach((item, position) => {
        const scores = Object.fromEntries(Object.entries(item.scores).map(([key, score]) => [key, { score, reason: "r" }]));
        sql.exec(
          `INSERT INTO eval_items (eval_id, position, item, status, scores, cost_usd, judge_cost_usd, started_at, finished_at)
           VALUES ('ev_1', ?, ?, ?, ?, ?, ?, ?, ?)`,
          position,
          JSON.stringify({ input: "x".repeat(60_000) }),
          item.status,
          JSON.stringify(scores),
          item.cost,
          item.judge,
          item.started === null ? null : CREATED + item.started,
          item.finished === null ? null : CREATED + item.finished,
        );
      });
      const row = sql.exec<EvalRow>("SELECT * FROM evals WHERE id = 'ev_1'").one();
      const summary = summaryOf(row, itemTotals(sql, "ev_1"));
      expect(summary.scores).toEqual({ exact: 0.666667, judge: 0.5, unused: null });
      expect(summary.progress).toEqual({ total: 6, pending: 1, running: 2, finished: 3 });
      expect(summary.cost_usd).toBe(0.0035);
      expect(summary.judge_cost_usd).toBe(0.0002);
      // Without its end recorded (as while it runs: 'done' here only keeps the store's runner off this made-up eval),
      // to the latest start or end of any item.
      expect(summary.duration_ms).toBe(950);
      // The items as answers show them carry no copy of the dataset item.
      const shown = items(sql, "ev_1");
      expect(shown).toHaveLength(6);
      expect(shown.every((item) => !("item" in item) && !("outcome" in item) && !("judges" in item))).toBe(true);
    });
  });
});
