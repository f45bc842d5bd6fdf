/**
 * One benchmark session run to its end, on the platform or on the bare loop: the mock scripted
 * with one `get_time` call per step, the session started, watched until it ends, and the mock's
 * timeline of its model calls read back.
 */
import type { ApiClient } from "../../test/e2e/support/api-client";
import { uniqueName } from "../../test/e2e/support/stack";
import { pollUntil, retryClosedConnection, type World } from "../world";
import { GET_TIME_TOOL, type ModelTimeline, timelineOf, toolSteps } from "./model-script";

export type Target = "platform" | "baseline";

/** A run may take this long per step on a loaded machine, plus a minute to start and end. */
const RUN_TIMEOUT_PER_STEP_MS = 1_000;
const RUN_TIMEOUT_BASE_MS = 60_000;
/** The mock is asked often: it answers from memory, on the other core. */
const MOCK_POLL_MS = 50;

/**
 * How a run is watched: through the mock (no request reaches the process under test while it
 * runs; for short runs, since each poll returns every recorded call), or by its status.
 */
export type Watch = { via: "mock" } | { via: "status"; pollMs: number };

/** Runs one session of `steps` steps to its end on `target`; returns the mock's timeline of it. */
export async function runSession(world: World, target: Target, steps: number, client: ApiClient, watch: Watch = { via: "mock" }): Promise<{ timeline: ModelTimeline; sessionId: string }> {
  const model = uniqueName(`bench-${target}`);
  const queue = world.mock.model(model);
  await retryClosedConnection(() => queue.script(...toolSteps(steps)));
  const input = "What time is it, step after step?";
  const timeoutMs = RUN_TIMEOUT_BASE_MS + steps * RUN_TIMEOUT_PER_STEP_MS;
  let sessionId: string;
  if (target === "platform") {
    sessionId = (await client.createSession({ input, model, tools: [GET_TIME_TOOL] })).id;
  } else {
    sessionId = await world.startBaseline(model, input);
  }
  if (watch.via === "mock") {
    await pollUntil(async () => (await queue.requests()).filter((r) => r.answered_at !== undefined).length > steps, timeoutMs, `${steps + 1} model calls of ${model}`, MOCK_POLL_MS);
  }
  const pollMs = watch.via === "mock" ? MOCK_POLL_MS : watch.pollMs;
  await pollUntil(async () => (await finalStatus(world, target, client, sessionId)) !== null, timeoutMs, `the end of ${sessionId}`, pollMs);
  const status = await retryClosedConnection(() => finalStatus(world, target, client, sessionId));
  if (status !== "done") throw new Error(`${target} session ${sessionId} ended ${status}`);
  const timeline = timelineOf(await retryClosedConnection(() => queue.requests()));
  await retryClosedConnection(() => queue.forget());
  return { timeline, sessionId };
}

async function finalStatus(world: World, target: Target, client: ApiClient, id: string): Promise<string | null> {
  const status = target === "platform" ? (await client.getSession(id)).status : (await world.baselineStatuses([id]))[id];
  return status === "running" || status === undefined || status === null ? null : status;
}

