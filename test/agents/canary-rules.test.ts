/** The canary's pure rules: a run's verdict, the rollback's, and the bucket's spread. */
import { describe, expect, it } from "vitest";
import { canaryBucket, judgeRun, rollbackReason, type RollbackRule } from "../../src/agents/canary";

const RULE: RollbackRule = { scorers: [], min_score: 0.5, max_failure_rate: 0.2, min_runs: 4 };
const ok = (score: number | null) => ({ score, reason: "" });

describe("canary rules", () => {
  it("scores a run by its scorers' mean and fails it for a failed status or a scorer below min_score", () => {
    expect(judgeRun({ failed: false, scores: [ok(1), ok(0.6)] }, RULE)).toEqual({ score: 0.8, failed: false });
    expect(judgeRun({ failed: false, scores: [ok(1), ok(0.4)] }, RULE)).toEqual({ score: 0.7, failed: true });
    expect(judgeRun({ failed: true, scores: [ok(1)] }, RULE)).toEqual({ score: 1, failed: true });
    expect(judgeRun({ failed: false, scores: [ok(null)] }, RULE)).toEqual({ score: null, failed: false });
    expect(judgeRun({ failed: false, scores: [ok(0)] }, null)).toEqual({ score: 0, failed: false });
  });

  it("judges only from min_runs on, by the mean score first, then the failure rate", () => {
    const counts = (runs: number, failures: number, scored: number, sum: number) => ({ runs, failures, scored, score_sum: sum });
    expect(rollbackReason(counts(3, 3, 3, 0), RULE)).toBeNull();
    expect(rollbackReason(counts(4, 0, 4, 1.9), RULE)).toBe("min_score");
    expect(rollbackReason(counts(4, 1, 4, 4), RULE)).toBe("max_failure_rate");
    expect(rollbackReason(counts(5, 1, 5, 5), RULE)).toBeNull();
    expect(rollbackReason(counts(4, 0, 0, 0), RULE)).toBeNull();
    expect(rollbackReason(counts(100, 100, 100, 0), null)).toBeNull();
  });

  it("puts a key in one bucket always, and spreads keys over all of them", async () => {
    expect(await canaryBucket("a")).toBe(await canaryBucket("a"));
    const buckets = await Promise.all(Array.from({ length: 1000 }, (_, i) => canaryBucket(`key-${i}`)));
    expect(buckets.every((b) => Number.isInteger(b) && b >= 0 && b < 100)).toBe(true);
    const below50 = buckets.filter((b) => b < 50).length;
    expect(below50).toBeGreaterThan(400);
    expect(below50).toBeLessThan(600);
  });
});
