/**
 * The agent store's door to a tenant's datasets and eval runs: each operation checked and applied
 * in one transaction (with its audit entry), and the alarm's step over the running evals. The
 * AgentStore class routes its `evals` RPC here, one line; nothing here knows that class.
 */
import type { AuditChange, AuditContext } from "../audit/types";
import { describeError, log } from "../log";
import { base64url } from "../shared/base64";
import { requireInt, requireNow, requirePageLimit, requireString, optionalCursor } from "../shared/validate";
import type { EvalHost } from "./host";
import { evalView, summaryOf } from "./results";
import { advanceEval } from "./runner";
import { scorerKeys } from "./scorers";
import * as datasets from "./store/datasets";
import * as evals from "./store/evals";
import type { Dataset, DatasetItem, EvalOp, EvalOps, EvalResult } from "./types";

/** Items one dataset holds: an eval runs each as a session, so this bounds an eval too. */
export const MAX_DATASET_ITEMS = 1_000;
/** Datasets a tenant keeps. */
export const MAX_DATASETS_PER_TENANT = 200;
/** Evals a tenant keeps, finished ones included. */
export const MAX_EVALS_PER_TENANT = 2_000;
/** Evals one alarm advances: the rest wait for the next, so one step stays short. */
const EVALS_PER_STEP = 5;
/** An eval whose step threw is stepped again after this long. */
const FAILED_STEP_RETRY_MS = 10_000;

export interface EvalsDoorDeps {
  storage: DurableObjectStorage;
  host: EvalHost;
  /** Records an audit entry inside the caller's transaction. */
  record(by: AuditContext | undefined, change: AuditChange, now: number): void;
  /** Asks for the alarm at once, committed with the write just made. */
  wake(): Promise<void>;
}

type Handler<K extends EvalOp> = (
  input: EvalOps[K]["input"],
  by: AuditContext | undefined,
) => EvalOps[K]["output"] | Promise<EvalOps[K]["output"]>;

const NO_DATASET = { ok: false, reason: "dataset_not_found" } as const;
const NO_EVAL = { ok: false, reason: "eval_not_found" } as const;

export class EvalsDoor {
  readonly #deps: EvalsDoorDeps;

  constructor(deps: EvalsDoorDeps) {
    this.#deps = deps;
  }

  get #sql(): SqlStorage {
    return this.#deps.storage.sql;
  }

  #tx<T>(fn: () => T): T {
    return this.#deps.storage.transactionSync(fn);
  }

  async call<K extends EvalOp>(op: K, input: EvalOps[K]["input"], by?: AuditContext): Promise<EvalOps[K]["output"]> {
    const handler = this.#handlers[op] as Handler<K> | undefined;
    if (!handler) throw new TypeError(`unknown eval operation ${String(op)}`);
    return handler(input, by);
  }

  /** What a store never used answers: nothing there. */
  static empty<K extends EvalOp>(op: K): EvalOps[K]["output"] {
    if (op === "listDatasets" || op === "listEvals") return { data: [], next_cursor: null } as EvalOps[K]["output"];
    return (op === "getEval" ? NO_EVAL : NO_DATASET) as EvalOps[K]["output"];
  }

  /** The alarm's step: advances the running evals; the time of the next step, or null. */
  async step(tenantId: string, now: number): Promise<number | null> {
    let next: number | null = null;
    for (const row of this.#sql
      .exec<evals.EvalRow>(
        `SELECT * FROM evals e WHERE status = 'running' OR (status IN ('cancelled', 'failed') AND EXISTS
           (SELECT 1 FROM eval_items i WHERE i.eval_id = e.id AND i.status IN ('running', 'judging'))) ORDER BY created_at LIMIT ?`,
        EVALS_PER_STEP + 1,
      )
      .toArray()
      .slice(0, EVALS_PER_STEP + 1)
      .entries()) {
      const [i, eval_] = row;
      // One more than a step takes means some wait: come back at once.
      if (i === EVALS_PER_STEP) return now + 1;
      let at: number | null;
      try {
        at = await advanceEval(this.#sql, this.#deps.host, tenantId, eval_, now);
      } catch (error) {
        // A session object that failed to answer: this eval tries again later, and neither the
        // other evals nor the rest of the alarm wait on it (a thrown alarm is retried, then dropped).
        log("warn", "eval.step_failed", { tenant_id: tenantId, eval_id: eval_.id, error: describeError(error).message });
        at = now + FAILED_STEP_RETRY_MS;
      }
      if (at !== null) next = Math.min(next ?? Infinity, at);
    }
    return next;
  }

  readonly #handlers: { [K in EvalOp]: Handler<K> } = {
    createDataset: (input, by) => {
      const name = requireString("name", input.name, 200);
      const items = requireItems(input.items);
      const createdBy = requireString("createdBy", input.createdBy);
      const now = requireNow(input.now);
      const id = newId("dst_");
      return this.#tx((): EvalResult<Dataset> => {
        if (datasets.countDatasets(this.#sql) >= MAX_DATASETS_PER_TENANT)
          return { ok: false, reason: "limit_reached", what: "datasets", max: MAX_DATASETS_PER_TENANT };
        datasets.insertDataset(this.#sql, id, name, items, createdBy, now);
        this.#deps.record(by, { action: "dataset.created", target: { type: "dataset", id }, details: { name, items: items.length } }, now);
        return { ok: true, value: datasets.toDataset(datasets.getDataset(this.#sql, id)!) };
      });
    },
    listDatasets: (input) => datasets.listDatasets(this.#sql, requirePageLimit(input.limit), optionalCursor(input.cursor)),
    getDataset: (input) => {
      const row = datasets.getDataset(this.#sql, requireString("id", input.id));
      return row ? { ok: true, value: { ...datasets.toDataset(row), items: datasets.listItems(this.#sql, row.id) } } : NO_DATASET;
    },
    deleteDataset: (input, by) =>
      this.#tx(() => {
        const id = requireString("id", input.id);
        if (!datasets.deleteDataset(this.#sql, id)) return NO_DATASET;
        this.#deps.record(by, { action: "dataset.deleted", target: { type: "dataset", id } }, Date.now());
        return { ok: true, value: null };
      }),
    addItems: (input, by) => {
      const items = requireItems(input.items);
      return this.#change(input.id, input.now, by, (row, now) => {
        if (row.item_count + items.length > MAX_DATASET_ITEMS) return { ok: false, reason: "too_many_items", max: MAX_DATASET_ITEMS };
        datasets.appendItems(this.#sql, row, items, now);
        return { ok: true, value: { added: items.length } };
      });
    },
    replaceItem: (input, by) => {
      const [item] = requireItems([input.item]);
      const index = requireInt("index", input.index, 0, MAX_DATASET_ITEMS);
      return this.#change(input.id, input.now, by, (row, now) => {
        if (index >= row.item_count) return { ok: false, reason: "item_not_found", index };
        datasets.replaceItem(this.#sql, row, index, item!, now);
        return { ok: true, value: { replaced: index } };
      });
    },
    deleteItem: (input, by) => {
      const index = requireInt("index", input.index, 0, MAX_DATASET_ITEMS);
      return this.#change(input.id, input.now, by, (row, now) => {
        if (index >= row.item_count) return { ok: false, reason: "item_not_found", index };
        datasets.deleteItem(this.#sql, row, index, now);
        return { ok: true, value: { deleted: index } };
      });
    },
    createEval: async (input, by) => {
      const now = requireNow(input.now);
      const concurrency = requireInt("concurrency", input.concurrency, 1, 1_000);
      const id = newId("evl_");
      const result = this.#tx((): EvalResult<null> => {
        const dataset = datasets.getDataset(this.#sql, requireString("datasetId", input.datasetId));
        if (!dataset) return NO_DATASET;
        if (dataset.item_count === 0) return { ok: false, reason: "dataset_empty" };
        if (evals.countEvals(this.#sql) >= MAX_EVALS_PER_TENANT)
          return { ok: false, reason: "limit_reached", what: "evals", max: MAX_EVALS_PER_TENANT };
        const config: evals.EvalConfig = {
          agent: input.agent,
          dataset_id: dataset.id,
          dataset_version: dataset.version,
          scorers: input.scorers,
          scorer_keys: scorerKeys(input.scorers),
          concurrency,
          creator: input.creator,
        };
        evals.insertEval(
          this.#sql,
          id,
          config,
          datasets.listItems(this.#sql, dataset.id),
          requireString("createdBy", input.createdBy),
          now,
        );
        this.#deps.record(
          by,
          {
            action: "eval.created",
            target: { type: "eval", id },
            details: { agent_id: input.agent.agent_id, version: input.agent.version, dataset_id: dataset.id, items: dataset.item_count },
          },
          now,
        );
        return { ok: true, value: null };
      });
      if (!result.ok) return result;
      await this.#deps.wake();
      return this.#evalView(id);
    },
    listEvals: (input) => {
      const page = evals.listEvals(this.#sql, requirePageLimit(input.limit), optionalCursor(input.cursor));
      return { data: page.rows.map((row) => summaryOf(row, evals.itemTotals(this.#sql, row.id))), next_cursor: page.next_cursor };
    },
    getEval: (input) => this.#evalView(requireString("id", input.id)),
    cancelEval: async (input, by) => {
      const id = requireString("id", input.id);
      const now = requireNow(input.now);
      const result = this.#tx((): EvalResult<null> => {
        const row = evals.getEval(this.#sql, id);
        if (!row) return NO_EVAL;
        if (row.status !== "running") return { ok: false, reason: "eval_finished", status: row.status };
        evals.cancelPending(this.#sql, id, now);
        evals.finishEval(this.#sql, id, "cancelled", null, now);
        this.#deps.record(by, { action: "eval.cancelled", target: { type: "eval", id } }, now);
        return { ok: true, value: null };
      });
      if (!result.ok) return result;
      // The alarm cancels the sessions still running (runner.ts).
      await this.#deps.wake();
      return this.#evalView(id);
    },
  };

  #evalView(id: string): EvalResult<ReturnType<typeof evalView>> {
    const row = evals.getEval(this.#sql, id);
    return row ? { ok: true, value: evalView(row, evals.items(this.#sql, id), evals.itemTotals(this.#sql, id)) } : NO_EVAL;
  }

  /** A change of a dataset's items: one transaction, a new version, one audit entry. */
  #change(
    idValue: unknown,
    nowValue: unknown,
    by: AuditContext | undefined,
    apply: (row: NonNullable<ReturnType<typeof datasets.getDataset>>, now: number) => EvalResult<Record<string, number>>,
  ): EvalResult<Dataset> {
    const id = requireString("id", idValue);
    const now = requireNow(nowValue);
    return this.#tx((): EvalResult<Dataset> => {
      const row = datasets.getDataset(this.#sql, id);
      if (!row) return NO_DATASET;
      const applied = apply(row, now);
      if (!applied.ok) return applied;
      const after = datasets.getDataset(this.#sql, id)!;
      this.#deps.record(
        by,
        { action: "dataset.updated", target: { type: "dataset", id }, details: { ...applied.value, version: after.version } },
        now,
      );
      return { ok: true, value: datasets.toDataset(after) };
    });
  }
}

function newId(prefix: string): string {
  return prefix + base64url(crypto.getRandomValues(new Uint8Array(18)));
}

/** The gateway checked each item's shape; here what the tables rely on. */
function requireItems(value: unknown): DatasetItem[] {
  if (!Array.isArray(value) || value.length > MAX_DATASET_ITEMS)
    throw new TypeError(`items must be a list of at most ${MAX_DATASET_ITEMS}`);
  for (const item of value)
    if (typeof item !== "object" || item === null || !("input" in item)) throw new TypeError("an item has no input");
  return value as DatasetItem[];
}
