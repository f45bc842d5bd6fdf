/**
 * A user message for a run (`start`, `enqueue`, `interrupt`): checked against the session's
 * limits and model, its images prepared, and applied once per request key.
 */
import { capLimits, type Limits } from "../../../limits";
import type { SessionEngine } from "../engine/engine";
import { type InputRules, type PreparedInput, prepareInput, storeInput } from "../input";
import { acceptsImages } from "../../../models/catalog";
import { appliedOutcome, checkRequestKey, noteApplied, type RequestOutcome } from "../request-keys";
import type { RunInput, RunOptions } from "../../../session-config/types";
import { type Answer, type Failure, SESSION_NOT_FOUND, SHOWN } from "./answers";

export type TakenMessage = { ok: true; key: string | null; prepared: PreparedInput } | { ok: false; answer: Answer };

/**
 * What `start`, `enqueue` and `interrupt` do first: a message already applied under
 * `requestKey` is answered with the session as it stands, and the input is checked and its
 * images prepared. The images are measured and hashed before any state is read, so the checks
 * that follow see the state as it is after the await; the key is looked at again after it.
 */
export async function takeMessage(
  engine: SessionEngine,
  input: RunInput,
  cap: Limits | null,
  requestKey: string | null,
): Promise<TakenMessage> {
  const key = checkRequestKey(requestKey);
  if (applied(engine, key)) return { ok: false, answer: SHOWN };
  const session = engine.requireSession();
  const limits = cap ? capLimits(session.limits, cap) : session.limits;
  const prepared = await prepareInput(input, inputRules(engine, session.model, limits));
  if (!prepared.ok) return { ok: false, answer: { ok: false, reason: "invalid", detail: prepared.problem } };
  if (!engine.store.exists()) return { ok: false, answer: SESSION_NOT_FOUND };
  if (applied(engine, key)) return { ok: false, answer: SHOWN };
  return { ok: true, key, prepared: prepared.input };
}

/** Whether a message was already applied under `key`. */
export function applied(engine: SessionEngine, key: string | null): boolean {
  return key !== null && appliedOutcome(engine.ctx.storage.kv, key) !== null;
}

/** Applies a message and notes its key in one transaction: both are saved, or neither. */
export function applyKeyed(engine: SessionEngine, key: string | null, outcome: RequestOutcome, apply: () => void): void {
  engine.transaction(() => {
    apply();
    if (key !== null) noteApplied(engine.ctx.storage.kv, key, outcome, Date.now());
  });
}

/** Stores the input's images and starts a run with it, in one transaction. */
export function startRunWith(engine: SessionEngine, input: PreparedInput, options: RunOptions): void {
  engine.transaction(() => engine.startRun(storeInput(engine.store, input, engine.nowIso()), options));
}

/** An input's checks for a session on `model` with `limits`. */
export function inputRules(engine: SessionEngine, model: string, limits: Limits): InputRules {
  return { maxImageBytes: limits.max_image_bytes, imagesAccepted: acceptsImages(engine.config.models, model) };
}

/** The prepared input of a message that was checked, or its failure. */
export async function prepareFirst(
  engine: SessionEngine,
  input: RunInput | null,
  model: string,
  limits: Limits,
): Promise<{ ok: true; input: PreparedInput | null } | Failure> {
  if (input === null) return { ok: true, input: null };
  const prepared = await prepareInput(input, inputRules(engine, model, limits));
  return prepared.ok ? prepared : { ok: false, reason: "invalid", detail: prepared.problem };
}
