/**
 * The RPC surface of the per-session Durable Object (`session object`): what the gateway, a schedule's
 * firing and the tenant index may call. Every control answers an `SessionResult`, a value or a
 * machine reason, never a thrown error; the class implements this interface, so the two cannot
 * drift apart, and callers are typed by it rather than by the class.
 */
import type { StorageFootprint } from "../../storage/object-storage";
import type { AuditContext } from "../../audit/types";
import type { Limits, PartialLimits } from "../../limits";
import type { SessionResult, Message, Page, RunInput, RunOptions, Session, SessionInit, Step, ToolCall } from "../../session-config/types";
import type { SessionViewer } from "../viewer";
import type { StreamFilter } from "./events/streams";
import type { RequestOutcome } from "./request-keys";
import type { ForkCopy, ForkRows } from "./store/fork";
import type { ChildReport } from "./subagents/report";
import type { TreeAnswer, TreeAsk } from "./subagents/tree";
import type { AdmissionLimits, SessionAdmission } from "../../tenants/types";

/** What `create` answers, and the admission it is given (null: the caller holds the run slot). */
export type Created = SessionResult<Session> | NotAdmitted;
export type Admission = AdmissionLimits | null;

/** A create refused by the tenant index's run admission (`admitSession`): the session was erased, the refusal is the index's. */
export interface NotAdmitted {
  ok: false;
  reason: "not_admitted";
  refusal: Exclude<SessionAdmission, { ok: true }>;
}

export interface SessionRpc {
  /**
   * Creates the session; with `input`, its first run starts. Given `admission` (the limits the
   * request was admitted with), the session asks its tenant index for the run's admission itself,
   * in the one call that also lists it; without, the caller holds the run slot.
   */
  create(init: SessionInit, input: RunInput | null, options?: RunOptions, admission?: Admission): Promise<Created>;
  /** A fork: created with `init`, the rows `forkCopy` of its source answered, and, given input, a run (traced as `options` say). */
  createFork(init: SessionInit, rows: ForkRows, input: RunInput | null, options?: RunOptions): Promise<SessionResult<Session>>;
  /**
   * A child session of an `agent` tool call: created with `input` as its first run, `running` with
   * a free run slot, else `queued`. Asked again for a session that exists, it answers the session.
   * `options`: the run's `trace` only (in the parent's trace); anything else is ignored.
   */
  createChild(init: SessionInit, input: string, options?: RunOptions): Promise<SessionResult<Session>>;
  /** What a child session tells its parent of its state (see `ChildReport`); applied once per revision. */
  childReport(report: ChildReport): Promise<SessionResult<null>>;
  /**
   * Asked of a tree's root by any session of the tree (itself included): a place for a child, or a
   * model call, counted against the root's tree limits and answered in one stretch (subagents/tree.ts);
   * `invalid` for a child session, which keeps no tree.
   */
  treeTake(ask: TreeAsk): Promise<SessionResult<TreeAnswer>>;
  /** This child's state as its parent's look at it sees it; `invalid` for a session no call started. */
  parentReport(): Promise<SessionResult<ChildReport>>;
  /** What a fork at `atSeq` copies; `invalid` (field `body.at_seq`) for a seq no fork may end at. */
  forkCopy(atSeq: number | null): Promise<SessionResult<ForkCopy>>;
  get(): Promise<SessionResult<Session>>;
  /**
   * `cap`: the tenant's current limits, lowering the session's own. `requestKey` (here and on
   * `enqueue` and `interrupt`): a message already applied under it is not applied again.
   */
  start(input: RunInput, cap?: Limits | null, options?: RunOptions, requestKey?: string | null): Promise<SessionResult<Session>>;
  /** What the message sent with `requestKey` did, or null when none was applied under it. */
  requestOutcome(requestKey: string): Promise<SessionResult<RequestOutcome | null>>;
  /** `if_running: enqueue`; `run_not_going` when no run is going. */
  enqueue(input: RunInput, cap?: Limits | null, options?: RunOptions, requestKey?: string | null): Promise<SessionResult<Session>>;
  /** `if_running: interrupt`; `run_not_going` when no run is going. */
  interrupt(input: RunInput, cap?: Limits | null, options?: RunOptions, requestKey?: string | null): Promise<SessionResult<Session>>;
  cancel(): Promise<SessionResult<Session>>;
  pause(): Promise<SessionResult<Session>>;
  resume(cap?: Limits | null): Promise<SessionResult<Session>>;
  /** The tenant index granted this queued session a run slot. */
  slotGranted(): Promise<SessionResult<Session>>;
  /** The tenant index's word that the tenant's tool policy is now at `version`: the next tool step reads it. */
  policyChanged(version: number): Promise<SessionResult<null>>;
  /**
   * A tenant admin's change of the session's limits, checked against the tenant's by the caller and
   * audited here; a run waiting on a budget goes on (control/budget-wait.ts).
   */
  setLimits(limits: PartialLimits, by?: AuditContext): Promise<SessionResult<Session>>;
  /** The tenant index's word that a budget the session may wait on was raised: a key's (null) or the tenant's limits. */
  budgetRaised(tenantLimits: Limits | null): Promise<SessionResult<Session>>;
  /**
   * `decidedBy` (here and on `deny`): the subject of the principal who decides. `viewer` (here,
   * on `deny` and on `submitToolOutput`): the caller, when the object is to apply the access rule
   * itself; one it may not see the session for is answered `session_not_found`.
   */
  approve(callId: string, decidedBy?: string | null, viewer?: SessionViewer | null, by?: AuditContext): Promise<SessionResult<Session>>;
  deny(
    callId: string,
    reason: string | null,
    decidedBy?: string | null,
    viewer?: SessionViewer | null,
    by?: AuditContext,
  ): Promise<SessionResult<Session>>;
  submitToolOutput(callId: string, output: string, isError: boolean, viewer?: SessionViewer | null): Promise<SessionResult<Session>>;
  /** `maxChars`: the page ends before the message that would take its content past it (at most `MAX_PAGE_CHARS_BOUND`). */
  listMessages(after: number, limit: number, maxChars?: number): Promise<SessionResult<Page<Message>>>;
  /** `cursor`: the previous page's `next_cursor`; `maxChars` bounds inputs and outputs together, as for messages. */
  listToolCalls(cursor?: string | null, limit?: number, maxChars?: number): Promise<SessionResult<Page<ToolCall>>>;
  listSteps(after: number, limit: number): Promise<SessionResult<Page<Step>>>;
  /** Cancels whatever runs and deletes the session, once its owed notifications are handed off. */
  erase(): Promise<SessionResult<null>>;
  /** The retention sweep's erase: only while idle or final and unchanged since `before` (epoch ms); `false`: kept. */
  eraseIfExpired(before: number): Promise<SessionResult<boolean>>;
  /** A deleted tenant's session: every byte deleted, nothing handed off; harmless when gone already. */
  purge(): Promise<void>;
  /** What the object's storage holds. */
  footprint(): Promise<StorageFootprint>;
  /** Closes the event streams `filter` selects (a revoked key, a suspended tenant); returns how many. */
  closeStreams(filter: StreamFilter, why: "credentials" | "suspended"): Promise<number>;
  /** The ids of the open event streams (the tenant index recounts its live streams with them). */
  openStreamIds(): Promise<SessionResult<string[]>>;
  /** The event stream (`GET /v1/sessions/{id}/events`), built by `buildStreamRequest`. */
  fetch(request: Request): Promise<Response>;
}

/** The binding whose stubs offer this interface (src/env.ts). */
declare module "../../env" {
  interface ObjectRpcs {
    SESSION: SessionRpc;
  }
}
