/**
 * Waiting for a session to reach a status, by reading it until it does: a final status (the
 * run ended), or one the caller must act on (`waiting_approval`, `waiting_tool_output`). A run
 * that stopped at a budget (`waiting_budget`) goes on only when someone raises the budget: unless
 * asked for, that status ends the wait with a `BudgetWaitError` rather than a wait until the timeout.
 */
import type { PlatformClient } from "./client.ts";
import { expectData } from "./errors.ts";
import { finalStatusValues } from "./generated/openapi.ts";
import type { FinalStatus, FinishedSession, Session, SessionStatus } from "./types.ts";

export interface WaitOptions {
  /** Give up after this long (a `WaitTimeoutError`); default 5 minutes. */
  timeoutMs?: number;
  /** Between reads; default 500 ms. */
  intervalMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_INTERVAL_MS = 500;

export const FINAL_STATUSES: readonly FinalStatus[] = finalStatusValues;

export function isFinal(status: SessionStatus): status is FinalStatus {
  return (FINAL_STATUSES as readonly SessionStatus[]).includes(status);
}

export class WaitTimeoutError extends Error {
  override name = "WaitTimeoutError";
  readonly sessionId: string;
  /** The session as last read. */
  readonly last: Session;

  constructor(sessionId: string, last: Session) {
    super(`session ${sessionId} is still ${last.status}`);
    this.sessionId = sessionId;
    this.last = last;
  }
}

/** The run waits in `waiting_budget`: it goes on only once a tenant admin raises the budget, or a daily one renews. */
export class BudgetWaitError extends Error {
  override name = "BudgetWaitError";
  readonly sessionId: string;
  /** The session as read, waiting. */
  readonly session: Session;

  constructor(sessionId: string, session: Session) {
    super(`session ${sessionId} waits for its budget to be raised (waiting_budget)`);
    this.sessionId = sessionId;
    this.session = session;
  }
}

/** The session once its status is one of `statuses`; a `BudgetWaitError` when it waits on a budget not asked for. */
export async function waitForStatus<S extends SessionStatus>(
  client: PlatformClient,
  sessionId: string,
  statuses: readonly S[],
  options: WaitOptions = {},
): Promise<Session & { status: S }> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const interval = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  for (;;) {
    options.signal?.throwIfAborted();
    const session = await expectData(client.GET("/v1/sessions/{id}", { params: { path: { id: sessionId } }, signal: options.signal }));
    if ((statuses as readonly SessionStatus[]).includes(session.status)) return session as Session & { status: S };
    if (session.status === "waiting_budget") throw new BudgetWaitError(sessionId, session);
    if (Date.now() + interval > deadline) throw new WaitTimeoutError(sessionId, session);
    await sleep(interval, options.signal);
  }
}

/** The session once its run has ended: `done`, `failed` or `cancelled`. */
export function waitForFinalStatus(client: PlatformClient, sessionId: string, options: WaitOptions = {}): Promise<FinishedSession> {
  return waitForStatus(client, sessionId, FINAL_STATUSES, options);
}

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}
