/**
 * The typed client of a session's Durable Object, for the gateway and a schedule's firing. Each
 * call's answer type is the one `SessionRpc` declares; an answer becomes its value, or the
 * problem its machine reason stands for, mapped to wire text in one switch (`sessionProblem`).
 */
import type { AuditContext } from "../audit/types";
import type { Limits, PartialLimits } from "../limits";
import { sessionStub } from "../objects";
import { ApiError, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../problems";
import type { Env } from "../env";
import { buildStreamRequest, type StreamRequest } from "./object/events/stream-request";
import type { SessionRpc } from "./object/rpc";
import type { ForkRows } from "./object/store/fork";
import type { SessionFailure, SessionResult, RunInput, RunOptions, SessionInit } from "../session-config/types";
import type { SessionViewer } from "./viewer";
import { admissionLimits, runRefused } from "./run-admission";

export const SESSION_NOT_FOUND = "No such session.";
export const TOOL_CALL_NOT_FOUND = "No such tool call in this session.";
export const RUN_GOING = "The session is already running; wait for the run to end or cancel it.";
export const RUN_NOT_GOING = "The session has no run going.";

const ACTION_WORDS = { cancel: "cancelled", pause: "paused", resume: "resumed" } as const;

/** The one place a session object's machine reason becomes a problem and its text. */
export function sessionProblem(failure: SessionFailure): ApiError {
  switch (failure.reason) {
    case "session_not_found":
      return new ApiError("not_found", SESSION_NOT_FOUND);
    case "tool_call_not_found":
      return new ApiError("not_found", TOOL_CALL_NOT_FOUND);
    case "session_exists":
      return new ApiError("conflict", "A session with this id already exists.");
    case "run_going":
      return new ApiError("conflict", RUN_GOING);
    case "run_not_going":
      return new ApiError("conflict", RUN_NOT_GOING);
    case "queue_full":
      return new ApiError("conflict", `${failure.max} messages already wait for the next runs; wait for one to start or cancel the run.`);
    case "wrong_status":
      return new ApiError("conflict", `A ${failure.status} session cannot be ${ACTION_WORDS[failure.action]}.`);
    case "tool_call_not_waiting":
      return new ApiError("conflict", `The tool call is ${failure.status}, not ${failure.expected}.`);
    case "decision_needs_admin":
      return new ApiError("forbidden", "A call held by the tool policy is approved or denied by a principal with the tenant:admin scope.");
    case "stream_refused":
      if (failure.why === "suspended") return new ApiError("tenant_suspended");
      if (failure.why === "unavailable")
        return new ApiError("service_unavailable", undefined, { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS });
      return new ApiError("unauthorized");
    case "stream_limit": {
      const where = failure.scope === "session" ? "This session already has" : "The tenant already has";
      const limit = failure.scope === "session" ? "max_streams_per_session" : "max_streams_per_tenant";
      return new ApiError("rate_limited", `${where} ${failure.max} open event streams, its ${limit}; close one first.`, {
        ...(failure.retryAfterSeconds !== null ? { retryAfterSeconds: failure.retryAfterSeconds } : {}),
      });
    }
    case "invalid":
      return new ApiError("validation_failed", sentence(failure.detail), {
        errors: [{ path: failure.field ?? "body", message: failure.detail }],
      });
    case "unavailable":
      return new ApiError("service_unavailable", `${sentence(failure.detail)} Try again shortly.`, {
        retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
      });
  }
}

/** The value of a session object's answer, or its problem thrown. */
export function sessionValue<T>(result: SessionResult<T>): T {
  if (result.ok) return result.value;
  throw sessionProblem(result);
}

/** "a run is already going" → "A run is already going." */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return trimmed;
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** The value of a call's answer, typed by the interface, or its problem thrown. */
async function valueOf<T>(answer: Promise<SessionResult<T>>): Promise<T> {
  return sessionValue(await answer);
}

export class SessionClient {
  /** The stub seen through the interface: every answer has the type the object declares. */
  readonly #rpc: SessionRpc;

  constructor(env: Env, tenantId: string, sessionId: string) {
    this.#rpc = sessionStub(env, tenantId, sessionId);
  }

  /** The session, or null when this tenant has none with this id. */
  async find() {
    const result = await this.#rpc.get();
    if (!result.ok && result.reason === "session_not_found") return null;
    return sessionValue(result);
  }

  /**
   * Creates the session; given the `admission` limits the request was admitted with, its first
   * run is admitted by the session object itself, and a refusal comes back as `admitRun`'s problem.
   */
  async create(init: SessionInit, input: RunInput | null, options: RunOptions = {}, admission: Limits | null = null) {
    const created = await this.#rpc.create(init, input, options, admission && admissionLimits(admission));
    if (!created.ok && created.reason === "not_admitted") throw runRefused(created.refusal, admission!);
    return sessionValue(created);
  }

  /** A child session of an `agent` tool call: created with its run going (or queued), or found when it exists. */
  createChild(init: SessionInit, input: string, options: RunOptions = {}) {
    return valueOf(this.#rpc.createChild(init, input, options));
  }

  /** What a fork at `atSeq` copies (null: all that is saved, up to the last whole exchange). */
  forkCopy(atSeq: number | null) {
    return valueOf(this.#rpc.forkCopy(atSeq));
  }

  createFork(init: SessionInit, rows: ForkRows, input: RunInput | null, options: RunOptions = {}) {
    return valueOf(this.#rpc.createFork(init, rows, input, options));
  }

  /**
   * `if_running: enqueue`; the machine reason `run_not_going` comes back as a value for the caller
   * to act on. With `requestKey` (here, on `interrupt` and on `tryStart`) a message already applied
   * under the key is not applied again.
   */
  enqueue(input: RunInput, cap: Limits, options: RunOptions = {}, requestKey: string | null = null) {
    return this.#rpc.enqueue(input, cap, options, requestKey);
  }

  /** `if_running: interrupt`; `run_not_going` comes back as a value, like `enqueue`. */
  interrupt(input: RunInput, cap: Limits, options: RunOptions = {}, requestKey: string | null = null) {
    return this.#rpc.interrupt(input, cap, options, requestKey);
  }

  /** A start whose refusal the caller handles: `run_going` comes back as a value. */
  tryStart(input: RunInput, cap: Limits, options: RunOptions = {}, requestKey: string | null = null) {
    return this.#rpc.start(input, cap, options, requestKey);
  }

  /** What the message sent with `requestKey` did; null when none was applied under it. */
  requestOutcome(requestKey: string) {
    return valueOf(this.#rpc.requestOutcome(requestKey));
  }

  cancel() {
    return valueOf(this.#rpc.cancel());
  }

  pause() {
    return valueOf(this.#rpc.pause());
  }

  resume(cap: Limits) {
    return valueOf(this.#rpc.resume(cap));
  }

  /** A tenant admin's change of the session's limits, already checked against the tenant's; audited by the object. */
  setLimits(limits: PartialLimits, by: AuditContext) {
    return valueOf(this.#rpc.setLimits(limits, by));
  }

  /**
   * `viewer` decides: the object records its subject, and answers `session_not_found` to one the
   * access rule keeps out. `by` is required, so no path decides without naming its request for
   * the audit log (null: the platform's own decision).
   */
  approve(callId: string, viewer: SessionViewer, by: AuditContext | null) {
    return valueOf(this.#rpc.approve(callId, viewer.subject, viewer, by ?? undefined));
  }

  deny(callId: string, reason: string | null, viewer: SessionViewer, by: AuditContext | null) {
    return valueOf(this.#rpc.deny(callId, reason, viewer.subject, viewer, by ?? undefined));
  }

  submitToolOutput(callId: string, output: string, isError: boolean, viewer: SessionViewer) {
    return valueOf(this.#rpc.submitToolOutput(callId, output, isError, viewer));
  }

  listMessages(after: number, limit: number, maxChars?: number) {
    return valueOf(this.#rpc.listMessages(after, limit, maxChars));
  }

  listToolCalls(cursor: string | null, limit: number, maxChars?: number) {
    return valueOf(this.#rpc.listToolCalls(cursor, limit, maxChars));
  }

  listSteps(after: number, limit: number) {
    return valueOf(this.#rpc.listSteps(after, limit));
  }

  /** The retention sweep's erase: false when the session is kept (busy, or changed since `before`). */
  eraseIfExpired(before: number): Promise<boolean> {
    return valueOf(this.#rpc.eraseIfExpired(before));
  }

  async erase(): Promise<void> {
    await valueOf(this.#rpc.erase());
  }

  /**
   * The session's event stream as the session object serves it: a 101 with the WebSocket, a 200 with the
   * Server-Sent Events body, or a 204 for an ended session with nothing newer. Rebuilt as the
   * gateway's own response, whose headers the middleware after it may still set.
   */
  async openStream(stream: StreamRequest): Promise<Response> {
    const response = await this.#rpc.fetch(buildStreamRequest(stream));
    if (response.status === 101) return new Response(null, { status: 101, webSocket: response.webSocket });
    if (response.status === 200) return new Response(response.body, { status: 200, headers: response.headers });
    if (response.status === 204) return new Response(null, { status: 204 });
    const failure = (await response.json().catch(() => null)) as SessionFailure | null;
    if (failure && typeof failure.reason === "string") throw sessionProblem(failure);
    throw new Error(`the session object answered an event stream with ${response.status}`);
  }
}
