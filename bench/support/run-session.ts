/**
 * One benchmark session run to its end, on the platform or on the bare loop: the mock scripted
 * with one `get_time` call per step, the session started, watched until it ends, and the mock's
 * timeline of its model calls read back.
 */
import type { ApiClient } from "../../test/e2e/support/api-client";
import { uniqueName } from "../../test/e2e/support/stack";
import { pollUntil, retryClosedConnection, type World } from "../world";
import { GET_TIME_TOOL, type ModelTimeline, timelineOf, toolSteps } from "./model-script";

/** The platform, the bare loop, or the bare loop that streams its model answers. */
export type Target = "platform" | "baseline" | "streaming";

export const TARGET_NAMES: Record<Target, string> = { platform: "platform", baseline: "bare loop", streaming: "streaming bare loop" };

/** A run may take this long per step on a loaded machine, plus a minute to start and end. */
const RUN_TIMEOUT_PER_STEP_MS = 1_000;
const RUN_TIMEOUT_BASE_MS = 60_000;
/** The mock is asked often: it answers from memory, on the other core. */
const MOCK_POLL_MS = 50;
/**
 * A run that makes no model call for this long has stalled: a step takes milliseconds here, and
 * a few hundred under the heaviest load seen. A model call that hangs (the mock answers at once,
 * so one never has) would count as a stall too, though the loop would retry it by itself.
 */
export const STALL_MS = 3_000;
/** How often a long run watched by its status is also checked for progress at the mock. */
const PROGRESS_CHECK_MS = 1_000;
/** A run that stalls is repeated at most this many times before the benchmark gives up. */
const MAX_TRIES = 5;

/**
 * How a run is watched: through the mock (no request reaches the process under test while it
 * runs; for short runs, since each poll returns every recorded call), or by its status.
 */
export type Watch = { via: "mock" } | { via: "status"; pollMs: number };

export interface RunOptions {
  watch?: Watch;
  /**
   * A run that stalled and was revived is kept (its stalled step is one of many whose median is
   * taken) instead of repeated. Only the bare loop can be revived from outside.
   */
  keepRevived?: boolean;
  /**
   * Called once the mock has answered every model call, before anything asks the process under
   * test how the run ended (with `watch: mock`): where the cost meter is read.
   */
  whenAnswered?: () => Promise<void>;
}

/** A run that stopped making model calls before its end, and what its process showed then. */
export interface Stall {
  target: Target;
  sessionId: string;
  calls: number;
  state: unknown;
  /** What the benchmark did: repeated the run, or revived it and kept it. */
  handled: "repeated" | "revived and kept";
}

/** Every stall over the whole benchmark run. */
export const stalls: Stall[] = [];

class StalledRun extends Error {
  constructor(readonly stall: Omit<Stall, "handled">) {
    super(`${stall.target} session ${stall.sessionId} stalled after ${stall.calls} model calls: ${JSON.stringify(stall.state)}`);
  }
}

/**
 * Runs one session of `steps` steps to its end on `target`; returns the mock's timeline of it.
 * A run that stops making progress is recorded in `stalls` and repeated (or, for a bare-loop run
 * with `keepRevived`, revived and kept), so no figure includes a stall unless it says so.
 */
export async function runSession(
  world: World,
  target: Target,
  steps: number,
  client: ApiClient,
  options: RunOptions = {},
): Promise<{ timeline: ModelTimeline; sessionId: string }> {
  for (let tries = 1; ; tries++) {
    try {
      return await runOnce(world, target, steps, client, options);
    } catch (error) {
      if (!(error instanceof StalledRun) || tries >= MAX_TRIES) throw error;
      stalls.push({ ...error.stall, handled: "repeated" });
      console.warn(`  ${error.message}; the run is repeated`);
    }
  }
}

async function runOnce(
  world: World,
  target: Target,
  steps: number,
  client: ApiClient,
  options: RunOptions,
): Promise<{ timeline: ModelTimeline; sessionId: string }> {
  const watch = options.watch ?? { via: "mock" };
  const model = uniqueName(`bench-${target}`);
  const queue = world.mock.model(model);
  await retryClosedConnection(() => queue.script(...toolSteps(steps)));
  const input = "What time is it, step after step?";
  const timeoutMs = RUN_TIMEOUT_BASE_MS + steps * RUN_TIMEOUT_PER_STEP_MS;
  let sessionId: string;
  if (target === "platform") {
    sessionId = (await client.createSession({ input, model, tools: [GET_TIME_TOOL] })).id;
  } else {
    sessionId = await world.startBaseline(model, input, target === "streaming");
  }
  const progress = new Progress();
  // A probe that throws is tried again by `pollUntil`: a stall to give up on ends the wait, then is thrown.
  let givenUp: StalledRun | null = null;
  const onStall = async (calls: number): Promise<void> => {
    if (target !== "platform") {
      // The bare loop's alarm is set again (what storage held is reported); the run goes on.
      const state = await world.reviveBaseline(sessionId);
      if (options.keepRevived) {
        stalls.push({ target, sessionId, calls, state, handled: "revived and kept" });
        console.warn(`  ${target} session ${sessionId} stalled after ${calls} model calls: ${JSON.stringify(state)}; revived`);
        return;
      }
      givenUp = new StalledRun({ target, sessionId, calls, state });
    } else {
      const session = await client.getSession(sessionId);
      givenUp = new StalledRun({ target, sessionId, calls, state: { status: session.status, steps: session.usage.steps } });
      await client.request("POST", `/v1/sessions/${sessionId}/cancel`, {}).catch(() => undefined);
    }
    // Ended, so it takes no time from the next run.
    await retryClosedConnection(() => queue.forget());
  };
  if (watch.via === "mock") {
    await pollUntil(
      async () => {
        const answered = (await queue.requests()).filter((r) => r.answered_at !== undefined).length;
        if (progress.stalledAt(answered)) await onStall(answered);
        return givenUp !== null || answered > steps;
      },
      timeoutMs,
      `${steps + 1} model calls of ${model}`,
      MOCK_POLL_MS,
    );
    if (givenUp) throw givenUp;
    await options.whenAnswered?.();
  }
  const pollMs = watch.via === "mock" ? MOCK_POLL_MS : watch.pollMs;
  let checkedAt = Date.now();
  await pollUntil(
    async () => {
      if ((await finalStatus(world, target, client, sessionId)) !== null) return true;
      if (watch.via === "status" && Date.now() - checkedAt >= PROGRESS_CHECK_MS) {
        checkedAt = Date.now();
        const calls = (await queue.requests()).length;
        if (progress.stalledAt(calls)) await onStall(calls);
      }
      return givenUp !== null;
    },
    timeoutMs,
    `the end of ${sessionId}`,
    pollMs,
  );
  if (givenUp) throw givenUp;
  const status = await retryClosedConnection(() => finalStatus(world, target, client, sessionId));
  if (status !== "done") throw new Error(`${target} session ${sessionId} ended ${status}`);
  const timeline = timelineOf(await retryClosedConnection(() => queue.requests()));
  await retryClosedConnection(() => queue.forget());
  return { timeline, sessionId };
}

/** Whether a count of model calls has stood still for `STALL_MS`. */
class Progress {
  #calls = -1;
  #since = Date.now();

  stalledAt(calls: number): boolean {
    const now = Date.now();
    if (calls !== this.#calls) {
      this.#calls = calls;
      this.#since = now;
      return false;
    }
    if (now - this.#since < STALL_MS) return false;
    // Reported once per stall: a revived run gets another STALL_MS before it counts again.
    this.#since = now;
    return true;
  }
}

async function finalStatus(world: World, target: Target, client: ApiClient, id: string): Promise<string | null> {
  const status = target === "platform" ? (await client.getSession(id)).status : (await world.baselineStatuses([id]))[id];
  return status === "running" || status === undefined || status === null ? null : status;
}
