/**
 * What a session's ties to its parent and children need of its engine (which satisfies it): the
 * store, the run slot, the writes a child's end makes, and the cancel a suspended tenant asks for.
 */
import type { RunSlots } from "../engine/slots";
import type { EmittedEvent, EventData } from "../events/frames";
import type { SessionStore, StoredSession } from "../store/store";
import type { ToolCall } from "../../../session-config/types";

export interface FamilyHost {
  readonly store: SessionStore;
  readonly env: Cloudflare.Env;
  readonly slots: RunSlots;
  session(): StoredSession | undefined;
  requireSession(): StoredSession;
  transaction<T>(fn: () => T): T;
  finishCall(call: ToolCall, output: string, isError: boolean): void;
  emit<T extends EmittedEvent["type"]>(type: T, data: EventData<T> | undefined): void;
  continueRun(runnable?: "running" | "queued"): void;
  cancelRun(): void;
}
