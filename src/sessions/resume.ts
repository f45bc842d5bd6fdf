/**
 * Resuming a paused session. It spends tokens again, so the daily budget applies; a paused
 * session holds no run slot, so without a free one it goes `queued` and starts by itself when
 * one frees, instead of being refused.
 */
import type { Actor } from "./actor";
import { loadOwnedSession } from "./access";
import { sessionProblem } from "./client";
import { checkDailyBudget } from "./run-admission";
import type { Session } from "../session-config/types";

export async function resumeSession(actor: Actor, sessionId: string): Promise<Session> {
  const { env, principal, limits } = actor;
  const { session, client } = await loadOwnedSession(env, principal, sessionId);
  // Checked before the budget so a wrong-state call costs the index nothing; the session object checks again.
  if (session.status !== "paused") throw sessionProblem({ reason: "wrong_status", action: "resume", status: session.status });
  await checkDailyBudget(env, principal.tenantId, limits, Date.now());
  return client.resume(limits);
}
