/**
 * Datasets and eval runs as the agent store keeps them and the gateway shows them, and the
 * operations the store's door answers (`EvalOps`). Plain data: these cross the RPC boundary.
 */
import type { AuditContext } from "../audit/types";
import type { Scorer } from "./scorers";

/** One case: the session's first input, what a scorer compares with, and the tenant's notes. */
export interface DatasetItem {
  input: unknown;
  expected?: unknown;
  metadata?: Record<string, unknown>;
}

export interface Dataset {
  id: string;
  name: string;
  /** 1 at creation, one more on every change of its items. */
  version: number;
  item_count: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface DatasetWithItems extends Dataset {
  items: DatasetItem[];
}

/** Whom an eval's sessions are created as: the creator's principal, checked again before each start. */
export interface EvalCreator {
  subject: string;
  scopes: string[];
  via: "jwt" | "api_key";
  key_id: string | null;
  expires_at: number | null;
}

export type EvalStatus = "running" | "completed" | "cancelled" | "failed";
export type EvalItemStatus = "pending" | "running" | "judging" | "done" | "failed" | "cancelled";

export interface ItemScore {
  score: number | null;
  reason: string;
}

export interface EvalItem {
  index: number;
  session_id: string | null;
  status: EvalItemStatus;
  /** The session's own status once it ended; null before. */
  session_status: string | null;
  scores: Record<string, ItemScore>;
  /** The session's cost, priced as the usage report prices it; null before it ended or without a price. */
  cost_usd: number | null;
  /** The judges' sessions' cost, counted apart from the agent's. */
  judge_cost_usd: number | null;
  steps: number | null;
  error: string | null;
}

export interface EvalProgress {
  total: number;
  pending: number;
  running: number;
  finished: number;
}

/** What an eval was asked, fixed at its creation: the `config` column (store/evals.ts). */
export interface EvalConfig {
  agent: { agent_id: string; version: number; ref: string };
  dataset_id: string;
  dataset_version: number;
  scorers: Scorer[];
  scorer_keys: string[];
  concurrency: number;
  creator: EvalCreator;
}

/** An eval as read: its config but the creator's standing, and how far it is. */
export interface EvalSummary extends Omit<EvalConfig, "creator"> {
  id: string;
  status: EvalStatus;
  progress: EvalProgress;
  /** The mean of each scorer over the items it scored; null while none has a score. */
  scores: Record<string, number | null>;
  cost_usd: number;
  judge_cost_usd: number;
  duration_ms: number | null;
  error: string | null;
  created_by: string;
  created_at: string;
  finished_at: string | null;
}

export interface Eval extends EvalSummary {
  items: EvalItem[];
}

export interface NewDataset {
  name: string;
  items: DatasetItem[];
  createdBy: string;
  now: number;
}

export interface NewEval {
  agent: { agent_id: string; version: number; ref: string };
  datasetId: string;
  scorers: Scorer[];
  concurrency: number;
  creator: EvalCreator;
  createdBy: string;
  now: number;
}

export type EvalFailure =
  | { reason: "dataset_not_found" }
  | { reason: "eval_not_found" }
  | { reason: "item_not_found"; index: number }
  | { reason: "too_many_items"; max: number }
  | { reason: "dataset_empty" }
  | { reason: "limit_reached"; what: "datasets" | "evals"; max: number }
  | { reason: "eval_finished"; status: EvalStatus };

export type EvalResult<T> = { ok: true; value: T } | ({ ok: false } & EvalFailure);

export interface ListInput {
  limit: number;
  cursor: string | null;
}

/** Each operation of the door: its input and its answer. */
export interface EvalOps {
  createDataset: { input: NewDataset; output: EvalResult<Dataset> };
  listDatasets: { input: ListInput; output: { data: Dataset[]; next_cursor: string | null } };
  getDataset: { input: { id: string }; output: EvalResult<DatasetWithItems> };
  deleteDataset: { input: { id: string }; output: EvalResult<null> };
  addItems: { input: { id: string; items: DatasetItem[]; now: number }; output: EvalResult<Dataset> };
  replaceItem: { input: { id: string; index: number; item: DatasetItem; now: number }; output: EvalResult<Dataset> };
  deleteItem: { input: { id: string; index: number; now: number }; output: EvalResult<Dataset> };
  createEval: { input: NewEval; output: EvalResult<Eval> };
  listEvals: { input: ListInput; output: { data: EvalSummary[]; next_cursor: string | null } };
  getEval: { input: { id: string }; output: EvalResult<Eval> };
  cancelEval: { input: { id: string; now: number }; output: EvalResult<Eval> };
}

export type EvalOp = keyof EvalOps;

/** The ops that write: they bind the tenant to the store; the others answer "none" to a store never used. */
export const WRITE_OPS: ReadonlySet<EvalOp> = new Set([
  "createDataset",
  "deleteDataset",
  "addItems",
  "replaceItem",
  "deleteItem",
  "createEval",
  "cancelEval",
]);

export type EvalCall = <K extends EvalOp>(op: K, input: EvalOps[K]["input"], by?: AuditContext) => Promise<EvalOps[K]["output"]>;
