/** The run's own controls: cancel, pause, resume, and a queued session's slot granted. */
import type { Limits } from "../../../limits";
import { openCallsState } from "../engine/tool-results";
import { ACTIVE_STATUSES, type SessionStatus, WAITING_STATUSES } from "../../../session-config/types";
import { type Answer, SHOWN, wrongStatus } from "./answers";
import type { ControlHost } from "./host";
import { markAtMostOnce } from "../tools/at-most-once";

export const INTERRUPTED_BY_PAUSE = "interrupted by a pause, not run again";

type RunHost = Pick<
  ControlHost,
  | "store"
  | "slots"
  | "inflight"
  | "toolbox"
  | "transaction"
  | "emit"
  | "updateRun"
  | "continueRun"
  | "cancelRun"
  | "finishCall"
  | "capLimits"
>;

export function cancel(host: Pick<ControlHost, "store" | "cancelRun">): Answer {
  const { status } = host.store.run();
  if (!ACTIVE_STATUSES.includes(status)) return wrongStatus("cancel", status);
  host.cancelRun();
  return SHOWN;
}

export function pause(host: RunHost): Answer {
  const { store } = host;
  const run = store.run();
  if (run.status !== "running" && run.status !== "queued" && !WAITING_STATUSES.includes(run.status)) {
    return wrongStatus("pause", run.status);
  }
  host.inflight.abortAll("paused");
  host.transaction(() => {
    // An at-most-once call cut off by the pause may have had its effect: it is not repeated.
    for (const call of store.openToolCalls()) {
      if (call.status === "running" && !markAtMostOnce(host.toolbox().get(call.name)?.atMostOnce).repeatAfterCut) {
        host.finishCall(call, INTERRUPTED_BY_PAUSE, true);
        host.emit("tool_result", store.toolCall(call.id));
      }
    }
    host.updateRun({ status: "paused", generation: run.generation + 1 });
  });
  return SHOWN;
}

export async function resume(host: RunHost, cap: Limits | null): Promise<Answer> {
  const { store } = host;
  const { status } = store.run();
  if (status !== "paused") return wrongStatus("resume", status);
  if (cap) host.capLimits(cap);
  // A paused session holds no run slot: it takes one again if it has work to run now.
  const waits = WAITING_STATUSES.includes(openCallsState(store.openToolCalls(), store.callsWaitingOnChildren()) as SessionStatus);
  // Something else may have moved the session while the index was asked. A pending retry keeps
  // its backoff and its count: pausing is no way around Retry-After.
  const refusal = await host.slots.goOn({
    needed: !waits,
    stands: () => (store.run().status === "paused" ? null : wrongStatus("resume", store.run().status)),
    go: (runnable) =>
      host.transaction(() => {
        host.updateRun({ status: runnable });
        host.continueRun(runnable);
      }),
    suspended: "instead",
  });
  return refusal ?? SHOWN;
}

/** The tenant index granted this queued session a run slot. */
export function slotGranted(host: Pick<ControlHost, "store" | "transaction" | "updateRun" | "continueRun">): Answer {
  if (host.store.run().status === "queued") takeSlot(host);
  return SHOWN;
}

/** A queued session that holds a slot now goes on. */
export function takeSlot(host: Pick<ControlHost, "transaction" | "updateRun" | "continueRun">): void {
  host.transaction(() => {
    host.updateRun({ status: "running" });
    host.continueRun();
  });
}

/** A queued session claims a slot (its alarm asks now and then, a child as it is created): it goes on with one. */
export async function claimQueuedSlot(
  host: Pick<ControlHost, "store" | "slots" | "transaction" | "updateRun" | "continueRun">,
): Promise<void> {
  await host.slots.goOn({
    needed: true,
    stands: () => (host.store.run().status === "queued" ? null : "moved_on"),
    go: (runnable) => (runnable === "running" ? takeSlot(host) : undefined),
  });
}
