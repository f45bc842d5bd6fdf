/**
 * The eval runner's step against a host of our own (src/evals/host.ts is the seam): a creator
 * whose gate closes for good ends the eval with nothing left waiting, and a session object that
 * throws delays only its own eval, never the others or the alarm.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EvalsDoor } from "../../src/evals/door";
import type { EvalGate, EvalHost, SessionOutcome } from "../../src/evals/host";
import { advanceEval } from "../../src/evals/runner";
import type { Scorer } from "../../src/evals/scorers";
import * as evals from "../../src/evals/store/evals";
import type { EvalCreator } from "../../src/evals/types";
import { agentStoreStub } from "../../src/objects";
import { freshTenant } from "../support/tokens";

const NOW = 1_800_000_000_000;
const JUDGE: Scorer = { type: "judge", model: "mock:judge", rubric: "Is it right?" };

function config(scorers: Scorer[], concurrency = 2): evals.EvalConfig {
  return {
    agent: { agent_id: "agt_AAAAAAAAAAAAAAAAAAAAAAAA", version: 1, ref: "agt_AAAAAAAAAAAAAAAAAAAAAAAA@1" },
    dataset_id: "dst_x",
    dataset_version: 1,
    scorers,
    scorer_keys: scorers.map((s) => s.type),
    concurrency,
    creator: {} as EvalCreator,
  };
}

const RUNNING: SessionOutcome = { status: "running", final: false, answer: null, output: null, toolCalls: [], steps: 1, costUsd: 0 };

/** A host whose gate answers `gate`, recording what it was asked. */
function host(gate: EvalGate, read: (id: string) => Promise<SessionOutcome | null> = async () => RUNNING) {
  const calls = { gate: 0, started: [] as string[], cancelled: [] as string[] };
  const value: EvalHost = {
    gate: async () => (calls.gate++, gate),
    start: async (_actor, _request, id) => (calls.started.push(id), { kind: "started" }),
    read: (_tenant, id) => read(id),
    cancel: async (_tenant, id) => void calls.cancelled.push(id),
  };
  return { value, calls };
}

/** Runs `fn` inside a fresh tenant's agent store, migrated by its first write. */
async function inStore(fn: (storage: DurableObjectStorage, tenantId: string) => Promise<void>): Promise<void> {
  const tenantId = freshTenant("eval-runner");
  const stub = agentStoreStub(env, tenantId);
  await stub.evals(tenantId, "createDataset", { name: "d", items: [{ input: "x" }], createdBy: "u", now: NOW });
  await runInDurableObject(stub, async (_instance, state) => {
    try {
      await fn(state.storage, tenantId);
    } finally {
      // The store's own alarm (its audit hand-over) must find none of these evals afterwards.
      state.storage.sql.exec("DELETE FROM eval_items");
      state.storage.sql.exec("DELETE FROM evals");
    }
  });
}

const STOP: EvalGate = { kind: "stop", error: "The credential that created this eval was revoked." };

describe("eval runner", () => {
  it("ends the eval when the creator's gate closes while an item waits for its judge, leaving nothing judging", async () => {
    await inStore(async (storage, tenantId) => {
      const sql = storage.sql;
      evals.insertEval(sql, "evl_judge", config([JUDGE]), [{ input: "a" }], "u", NOW);
      evals.updateItem(sql, "evl_judge", 0, {
        status: "judging",
        session_id: "ses_item",
        judges: JSON.stringify({ judge: null }),
        outcome: JSON.stringify({ answer: "4", output: null }),
      });
      const { value, calls } = host(STOP);
      const next = await advanceEval(sql, value, tenantId, evals.getEval(sql, "evl_judge")!, NOW);
      expect(next).toBeNull();
      expect(evals.getEval(sql, "evl_judge")).toMatchObject({ status: "failed", error: STOP.error });
      expect(evals.countItems(sql, "evl_judge")).toMatchObject({ judging: 0, running: 0, pending: 0, cancelled: 1 });
      expect(calls.started).toEqual([]);
    });
  });

  it("cancels the items still running when the gate closes for the next start, so the failed eval has none in flight", async () => {
    await inStore(async (storage, tenantId) => {
      const sql = storage.sql;
      evals.insertEval(sql, "evl_stop", config([{ type: "max_steps", max: 3 }], 2), [{ input: "a" }, { input: "b" }], "u", NOW);
      evals.updateItem(sql, "evl_stop", 0, { status: "running", session_id: "ses_a", started_at: NOW });
      const { value, calls } = host(STOP);
      expect(await advanceEval(sql, value, tenantId, evals.getEval(sql, "evl_stop")!, NOW)).toBeNull();
      expect(evals.getEval(sql, "evl_stop")!.status).toBe("failed");
      expect(calls.cancelled).toEqual(["ses_a"]);
      expect(evals.countItems(sql, "evl_stop")).toMatchObject({ running: 0, pending: 0, cancelled: 2 });
    });
  });

  it("backs off when the gate refuses a judge for now, rather than asking it at every step", async () => {
    await inStore(async (storage, tenantId) => {
      const sql = storage.sql;
      evals.insertEval(sql, "evl_later", config([JUDGE]), [{ input: "a" }], "u", NOW);
      evals.updateItem(sql, "evl_later", 0, { status: "judging", session_id: "ses_item", judges: JSON.stringify({ judge: null }) });
      const next = await advanceEval(sql, host({ kind: "later" }).value, tenantId, evals.getEval(sql, "evl_later")!, NOW);
      expect(next).toBeGreaterThanOrEqual(NOW + 5_000);
      expect(evals.getEval(sql, "evl_later")!.status).toBe("running");
    });
  });

  it("goes on with the other evals when one eval's session object throws, and steps the failing one again later", async () => {
    await inStore(async (storage, tenantId) => {
      const sql = storage.sql;
      evals.insertEval(sql, "evl_broken", config([{ type: "max_steps", max: 3 }]), [{ input: "a" }], "u", NOW - 2);
      evals.updateItem(sql, "evl_broken", 0, { status: "running", session_id: "ses_broken", started_at: NOW });
      evals.insertEval(sql, "evl_fine", config([{ type: "max_steps", max: 3 }]), [{ input: "b" }], "u", NOW - 1);
      const { value, calls } = host({ kind: "go", actor: null }, async (id) => {
        if (id === "ses_broken") throw new Error("the session object was reset");
        return RUNNING;
      });
      const door = new EvalsDoor({ storage, host: value, record: () => undefined, wake: async () => undefined });
      const next = await door.step(tenantId, NOW);
      expect(next).toBe(NOW + 1_000);
      expect(calls.started).toHaveLength(1);
      expect(evals.countItems(sql, "evl_fine").running).toBe(1);
      expect(evals.getEval(sql, "evl_broken")!.status).toBe("running");
    });
  });

  it("looks at a long-running session less often, at a tenth of its age between one and ten seconds", async () => {
    await inStore(async (storage, tenantId) => {
      const sql = storage.sql;
      const nexts: number[] = [];
      for (const [i, age] of [2_000, 50_000, 500_000].entries()) {
        const id = `evl_age${i}`;
        evals.insertEval(sql, id, config([{ type: "max_steps", max: 3 }], 1), [{ input: "a" }], "u", NOW - age);
        evals.updateItem(sql, id, 0, { status: "running", session_id: `ses_${i}`, started_at: NOW - age });
        const { value, calls } = host({ kind: "go", actor: null });
        nexts.push((await advanceEval(sql, value, tenantId, evals.getEval(sql, id)!, NOW))! - NOW);
        expect(calls.started).toEqual([]);
      }
      expect(nexts).toEqual([1_000, 5_000, 10_000]);
    });
  });
});
