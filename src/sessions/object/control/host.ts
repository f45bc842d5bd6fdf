/**
 * What the session's controls need of its engine, declared here by the controls (each module
 * takes the `Pick` it uses), so no control depends on the whole engine, which satisfies it.
 */
import type { Config } from "../../../config";
import type { Limits } from "../../../limits";
import type { AuditOutbox } from "../../../audit/outbox";
import type { Outbox } from "../../../notifications/outbox";
import type { EventLog } from "../events/event-log";
import type { InflightCalls } from "../engine/inflight";
import type { RunSlots } from "../engine/slots";
import type { Reporter } from "../report/reporter";
import type { RunState, SessionStore, StoredSession } from "../store/store";
import type { Toolbox } from "../tools/registry";
import type { ContentBlock, RunOptions, Session, ToolCall } from "../../../session-config/types";

export interface ControlHost {
  readonly ctx: DurableObjectState;
  readonly store: SessionStore;
  readonly slots: Pick<RunSlots, "goOn">;
  /** A new session's admission (control/admission.ts) and an erase's last report; other reports are reconcile's. */
  readonly reporter: Reporter;
  readonly events: EventLog;
  readonly outbox: Outbox;
  readonly audit: AuditOutbox;
  readonly inflight: InflightCalls;
  readonly config: Config;
  session(): StoredSession | undefined;
  requireSession(): StoredSession;
  view(): Session;
  nowIso(): string;
  toolbox(): Toolbox;
  capLimits(cap: Limits): void;
  transaction<T>(fn: () => T): T;
  /** Controls emit only a call's change (a decision, a result). */
  emit(type: "tool_call" | "tool_result", data: ToolCall | undefined): void;
  updateRun(patch: Partial<RunState>): RunState;
  startRun(content: ContentBlock[], options: RunOptions, status?: "running" | "queued"): void;
  interruptRun(content: ContentBlock[], options: RunOptions, status?: "running" | "queued"): void;
  continueRun(runnable?: "running" | "queued"): void;
  cancelRun(): void;
  finishCall(call: ToolCall, output: string, isError: boolean, startedAt?: string | null): void;
  eraseAll(): Promise<void>;
}
