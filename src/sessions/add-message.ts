/**
 * Adding a user message to a session, for any actor: the route and a schedule's firing. While a
 * run is going `if_running` decides: `reject` answers 409 before a concurrency slot is taken, so
 * a refused call costs nothing; `enqueue` and `interrupt` go to the session object, whose run already
 * holds a slot.
 */
import type { Env } from "../env";
import type { Limits } from "../limits";
import { ApiError } from "../problems";
import { loadOwnedSession } from "./access";
import type { Actor } from "./actor";
import { type SessionClient, sessionProblem } from "./client";
import { resolveRunInput } from "./images";
import { outputSchemaProblems } from "./output-schema";
import type { AddMessageRequest, IF_RUNNING } from "../session-config/request-schemas";
import { admitRun, sessionSpend, startWithSlot } from "./run-admission";
import { settingsOptions } from "./run-options";
import type { Principal } from "../auth/principal";
import { ACTIVE_STATUSES, type SessionResult, type RunInput, type RunOptions, type Session } from "../session-config/types";

/** A run can end, or start, between reading the session and asking its session object: try again once. */
const MAX_RACES = 2;

/** What became of the message: it started a run, waits for the next one, or interrupted the run going. */
export type MessageOutcome = "started" | "enqueued" | "interrupted";

export interface AddedMessage {
  session: Session;
  outcome: MessageOutcome;
}

/**
 * Adds the message to a session the actor may see (404 otherwise). With `requestKey`, the session object
 * applies the message at most once for that key: asked again, it answers as if it had just done
 * it, so a caller that lost the first answer can ask again safely.
 */
export async function addMessage(
  actor: Actor,
  sessionId: string,
  body: AddMessageRequest,
  requestKey: string | null = null,
): Promise<AddedMessage> {
  const { env, principal, limits, config } = actor;
  const { if_running: ifRunning } = body;
  const problems = outputSchemaProblems(body.output_schema);
  if (problems.length > 0) throw new ApiError("validation_failed", undefined, { errors: problems });
  const { session, client } = await loadOwnedSession(env, principal, sessionId);
  const input = await resolveRunInput(body.input, {
    maxImageBytes: Math.min(session.limits.max_image_bytes, limits.max_image_bytes),
    model: session.model,
    catalog: config.models,
    allowPrivateUrls: config.allowPrivateUrls,
  });
  const options: RunOptions = {
    ...(body.output_schema === undefined ? {} : { output_schema: body.output_schema }),
    ...settingsOptions(actor.settings, actor.traceparent),
  };
  let going = ACTIVE_STATUSES.includes(session.status);
  for (let attempt = 1; ; attempt++) {
    const result = going
      ? await whileRunning(client, ifRunning, input, limits, options, requestKey)
      : await startRun(env, principal, session, client, input, limits, options, requestKey);
    if (result.ok) return { session: result.value, outcome: going ? (ifRunning === "enqueue" ? "enqueued" : "interrupted") : "started" };
    const raced = (going && result.reason === "run_not_going") || (!going && result.reason === "run_going" && ifRunning !== "reject");
    if (!raced || attempt >= MAX_RACES) throw sessionProblem(result);
    going = !going;
  }
}

function whileRunning(
  client: SessionClient,
  ifRunning: (typeof IF_RUNNING)[number],
  input: RunInput,
  limits: Limits,
  options: RunOptions,
  requestKey: string | null,
): Promise<SessionResult<Session>> {
  if (ifRunning === "enqueue") return client.enqueue(input, limits, options, requestKey);
  if (ifRunning === "interrupt") return client.interrupt(input, limits, options, requestKey);
  return Promise.resolve({ ok: false, reason: "run_going" });
}

/** A start the session object refused; thrown through `startWithSlot` so the slot is given back. */
class RefusedStart extends Error {
  constructor(readonly result: SessionResult<Session>) {
    super("the session object refused the start");
  }
}

/** A new run: admitted by the tenant's index first (slot, daily budget), the slot given back if the session object refuses. */
async function startRun(
  env: Env,
  principal: Principal,
  session: Session,
  client: SessionClient,
  input: RunInput,
  limits: Limits,
  options: RunOptions,
  requestKey: string | null,
): Promise<SessionResult<Session>> {
  const tenantId = principal.tenantId;
  const id = session.id;
  await admitRun(env, principal, id, limits, sessionSpend(session), Date.now());
  try {
    // The tenant's current limits also cap a session created under looser ones.
    return await startWithSlot(env, tenantId, id, async () => {
      const result = await client.tryStart(input, limits, options, requestKey);
      if (!result.ok) throw new RefusedStart(result);
      return result;
    });
  } catch (error) {
    if (error instanceof RefusedStart) return error.result;
    throw error;
  }
}
