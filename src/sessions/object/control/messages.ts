/**
 * A user message for a run (`start`, `enqueue`, `interrupt`): checked against the session's
 * limits and model, its images prepared, and applied once per request key.
 */
import { capLimits, type Limits, MAX_QUEUED_MESSAGES } from "../../../limits";
import { type InputRules, type PreparedInput, prepareInput, redactInput, storeInput } from "../input";
import { acceptsImages } from "../../../models/catalog";
import { appliedOutcome, checkRequestKey, noteApplied, type RequestOutcome } from "../request-keys";
import { stillLive } from "../engine/gone";
import { ACTIVE_STATUSES, type RunInput, type RunOptions, type SessionResult, SLOT_STATUSES } from "../../../session-config/types";
import { type Answer, type Failure, RUN_NOT_GOING, SHOWN } from "./answers";
import type { ControlHost } from "./host";

type MessageHost = Pick<
  ControlHost,
  "ctx" | "store" | "slots" | "config" | "requireSession" | "view" | "nowIso" | "capLimits" | "transaction" | "startRun" | "interruptRun"
>;

export type TakenMessage = { ok: true; key: string | null; prepared: PreparedInput } | { ok: false; answer: Answer };

/** `if_running` unset: a run starts with the message; refused while one is going. */
export async function start(
  host: MessageHost,
  input: RunInput,
  cap: Limits | null,
  options: RunOptions,
  requestKey: string | null,
): Promise<Answer> {
  const taken = await takeMessage(host, input, cap, requestKey);
  if (!taken.ok) return taken.answer;
  if (ACTIVE_STATUSES.includes(host.store.run().status)) return { ok: false, reason: "run_going" };
  if (cap) host.capLimits(cap);
  applyKeyed(host, taken.key, "started", () => startRunWith(host, taken.prepared, options));
  return SHOWN;
}

/**
 * `if_running: enqueue`: the message waits and starts the next run as soon as the current one
 * ends (done or failed; a cancel drops it). Refused when no run is going: the caller starts
 * one instead, through the run admission that a start needs.
 */
export async function enqueue(
  host: MessageHost,
  input: RunInput,
  cap: Limits | null,
  options: RunOptions,
  requestKey: string | null,
): Promise<Answer> {
  const { store } = host;
  const taken = await takeMessage(host, input, cap, requestKey);
  if (!taken.ok) return taken.answer;
  if (!ACTIVE_STATUSES.includes(store.run().status)) return RUN_NOT_GOING;
  if (store.queuedMessages() >= MAX_QUEUED_MESSAGES) return { ok: false, reason: "queue_full", max: MAX_QUEUED_MESSAGES };
  if (cap) host.capLimits(cap);
  const ready = redactInput(taken.prepared, options.redaction);
  applyKeyed(host, taken.key, "enqueued", () => store.enqueueMessage(storeInput(store, ready, host.nowIso()), options, host.nowIso()));
  return SHOWN;
}

/**
 * `if_running: interrupt`: the current run stops exactly as a cancel would stop it, and a new
 * run starts with the message, without the session ever showing `cancelled`.
 */
export async function interrupt(
  host: MessageHost,
  input: RunInput,
  cap: Limits | null,
  options: RunOptions,
  requestKey: string | null,
): Promise<Answer> {
  const { store } = host;
  const taken = await takeMessage(host, input, cap, requestKey);
  if (!taken.ok) return taken.answer;
  if (!ACTIVE_STATUSES.includes(store.run().status)) return RUN_NOT_GOING;
  if (cap) host.capLimits(cap);
  const ready = redactInput(taken.prepared, options.redaction);
  // A run that waited (or was paused or queued) held no run slot: the new one needs one, and
  // without a free one it starts `queued`, like a waiting run that goes on. Meanwhile the
  // run may have ended, or the same keyed message been applied.
  const refusal = await host.slots.goOn<Answer>({
    needed: !SLOT_STATUSES.includes(store.run().status),
    stands: () => (applied(host, taken.key) ? SHOWN : ACTIVE_STATUSES.includes(store.run().status) ? null : RUN_NOT_GOING),
    go: (runnable) =>
      applyKeyed(host, taken.key, "interrupted", () => host.interruptRun(storeInput(store, ready, host.nowIso()), options, runnable)),
  });
  return refusal ?? SHOWN;
}

/** What the message sent with `requestKey` did, or null when none was applied under it. */
export function requestOutcome(host: Pick<ControlHost, "ctx">, requestKey: string): SessionResult<RequestOutcome | null> {
  const key = checkRequestKey(requestKey);
  return { ok: true, value: key === null ? null : appliedOutcome(host.ctx.storage.kv, key) };
}

/**
 * What `start`, `enqueue` and `interrupt` do first: a message already applied under
 * `requestKey` is answered with the session as it stands, and the input is checked and its
 * images prepared. The images are measured and hashed before any state is read, so the checks
 * that follow see the state as it is after the await; the key is looked at again after it.
 */
export async function takeMessage(
  host: MessageHost,
  input: RunInput,
  cap: Limits | null,
  requestKey: string | null,
): Promise<TakenMessage> {
  const key = checkRequestKey(requestKey);
  if (applied(host, key)) return { ok: false, answer: SHOWN };
  const session = host.requireSession();
  const limits = cap ? capLimits(session.limits, cap) : session.limits;
  const prepared = await stillLive(host.store, prepareInput(input, inputRules(host, session.model, limits)));
  if (!prepared.ok) return { ok: false, answer: { ok: false, reason: "invalid", detail: prepared.problem } };
  if (applied(host, key)) return { ok: false, answer: SHOWN };
  return { ok: true, key, prepared: prepared.input };
}

/** Whether a message was already applied under `key`. */
export function applied(host: Pick<ControlHost, "ctx">, key: string | null): boolean {
  return key !== null && appliedOutcome(host.ctx.storage.kv, key) !== null;
}

/** Applies a message and notes its key in one transaction: both are saved, or neither. */
export function applyKeyed(
  host: Pick<ControlHost, "ctx" | "transaction">,
  key: string | null,
  outcome: RequestOutcome,
  apply: () => void,
): void {
  host.transaction(() => {
    apply();
    if (key !== null) noteApplied(host.ctx.storage.kv, key, outcome, Date.now());
  });
}

/** Stores the input's images and starts a run with it, in one transaction. */
export function startRunWith(
  host: Pick<ControlHost, "store" | "transaction" | "startRun" | "nowIso">,
  input: PreparedInput,
  options: RunOptions,
): void {
  const ready = redactInput(input, options.redaction);
  host.transaction(() => host.startRun(storeInput(host.store, ready, host.nowIso()), options));
}

/** An input's checks for a session on `model` with `limits`. */
export function inputRules(host: Pick<ControlHost, "config">, model: string, limits: Limits): InputRules {
  return { maxImageBytes: limits.max_image_bytes, imagesAccepted: acceptsImages(host.config.models, model) };
}

/** The prepared input of a message that was checked, or its failure. */
export async function prepareFirst(
  host: Pick<ControlHost, "config">,
  input: RunInput | null,
  model: string,
  limits: Limits,
): Promise<{ ok: true; input: PreparedInput | null } | Failure> {
  if (input === null) return { ok: true, input: null };
  const prepared = await prepareInput(input, inputRules(host, model, limits));
  return prepared.ok ? prepared : { ok: false, reason: "invalid", detail: prepared.problem };
}
