/**
 * Creating a session: one preamble for a new session, a child and a fork (`createWith`), then
 * what each starts. Nothing is written until every check passed and the images are prepared.
 */
import { redactInput, storeInput, type PreparedInput } from "../input";
import type { ForkRows } from "../store/fork";
import { checkToolSpecs } from "../tools/registry";
import type { RunInput, RunOptions, SessionInit } from "../../../session-config/types";
import { type Answer, SHOWN } from "./answers";
import type { ControlHost } from "./host";
import { initialRun } from "./initial-run";
import { prepareFirst, startRunWith } from "./messages";
import { claimQueuedSlot } from "./run-state";
import { oweAdmission, settleAdmission } from "./admission";
import type { AdmissionLimits } from "../../../tenants/types";
import type { NotAdmitted } from "../rpc";

type CreateHost = Pick<
  ControlHost,
  | "ctx"
  | "store"
  | "slots"
  | "reporter"
  | "config"
  | "session"
  | "nowIso"
  | "transaction"
  | "startRun"
  | "updateRun"
  | "continueRun"
  | "cancelRun"
  | "eraseAll"
>;

export const SESSION_EXISTS: Answer = { ok: false, reason: "session_exists" };

/** How a kind of creation differs: its answer for a session that exists, a check of its own, the rows it copies. */
interface Creation {
  existing: Answer;
  problem?: string | null;
  rows?: ForkRows;
}

/**
 * The preamble every creation shares: a session that exists is answered `existing` (before and
 * after the images' await), the tools and the input are checked, and the session is written
 * (with a fork's rows, in one transaction). `then` starts what the kind starts with the input, in
 * the write's synchronous stretch (so a crash keeps both, or neither), and may answer a refusal.
 */
export async function createWith<F = never>(
  host: CreateHost,
  init: SessionInit,
  input: RunInput | null,
  creation: Creation,
  then: (prepared: PreparedInput) => void | Promise<F | void>,
): Promise<Answer | F> {
  if (host.session()) return creation.existing;
  const problem = creation.problem ?? checkToolSpecs(init.tools);
  if (problem) return { ok: false, reason: "invalid", detail: problem };
  const prepared = await prepareFirst(host, input, init.model, init.limits);
  if (!prepared.ok) return prepared;
  if (host.session()) return creation.existing;
  const now = host.nowIso();
  const write = () => host.store.create({ ...init, output_schema: init.output_schema ?? null, created_at: now }, initialRun(now));
  const rows = creation.rows;
  if (rows)
    host.transaction(() => {
      write();
      host.store.writeForkRows(rows, now);
    });
  else write();
  // `then` answers only a refusal (a new session's admission); nothing (void) when what it started stands.
  const refused = prepared.input ? ((await then(prepared.input)) as F | undefined) : undefined;
  return refused ?? SHOWN;
}

/**
 * A new session; with input, its first run starts. Given the `admission` limits, the run is
 * admitted here (control/admission.ts): written with the admission owed, in the write's stretch,
 * then asked of the index once; without, the caller holds the run slot.
 */
export function create(
  host: CreateHost,
  init: SessionInit,
  input: RunInput | null,
  options: RunOptions,
  admission: AdmissionLimits | null = null,
): Promise<Answer | NotAdmitted> {
  return createWith<NotAdmitted>(host, init, input, { existing: SESSION_EXISTS }, async (prepared) => {
    startRunWith(host, prepared, options);
    if (admission === null) return;
    await oweAdmission(host, admission);
    return (await settleAdmission(host)) ?? undefined;
  });
}

/**
 * A child session of an `agent` tool call, asked by its parent's tool unit. Its run starts at
 * once, `queued` when no run slot is free (the parent waits holding none, so a tenant with one
 * slot still runs parent and children in turn). Asked again, it answers the session as it is:
 * the parent may ask after a crash that lost the first answer.
 */
export function createChild(host: CreateHost, init: SessionInit, input: string, options: RunOptions): Promise<Answer> {
  const problem = typeof input !== "string" || !init?.parent ? "a child session needs its parent and a text input" : null;
  return createWith<never>(host, init, input, { existing: SHOWN, problem }, async (prepared) => {
    // The run's trace (a child of the parent's `execute_tool` span) and redaction are kept in its run state from here on.
    const { trace, redaction, tainted } = options ?? {};
    const ready = redactInput(prepared, redaction);
    host.transaction(() => host.startRun(storeInput(host.store, ready, host.nowIso()), { trace, redaction, tainted }, "queued"));
    await claimQueuedSlot(host);
  });
}
