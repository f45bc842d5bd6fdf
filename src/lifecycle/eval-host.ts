/**
 * How an eval's sessions are started, read and cancelled: through the very operations the
 * public routes run, as the eval's creator (checked again before each start, as a schedule's
 * firing checks its creator: `openGate`), so each item is an ordinary session, limited, budgeted
 * and admitted to a run slot like any other.
 */
import type { EvalHost, SessionOutcome } from "../evals/host";
import type { EvalCreator } from "../evals/types";
import { loadConfig } from "../config";
import type { Env } from "../env";
import { costOf, priceFor } from "../models/prices";
import { ApiError } from "../problems";
import { openGate } from "../schedules/fire";
import type { ScheduleCreator } from "../schedules/types";
import type { Actor } from "../sessions/actor";
import { SessionClient } from "../sessions/client";
import { createSession } from "../sessions/create";
import { transcriptEnds } from "../sessions/transcript-ends";
import type { CreateSessionRequest } from "../session-config/request-schemas";
import { FINAL_STATUSES } from "../session-config/statuses";

/** Pages read for a session's answer and tool calls; an eval's sessions are short. */
const PAGE = 200;
/** The characters of each tool call's input a scorer sees. */
const MAX_READ_CHARS = 20_000;

export function evalHost(env: Env): EvalHost {
  return {
    async gate(tenantId, creator, now) {
      const gate = await openGate(env, tenantId, creator as EvalCreator as ScheduleCreator, now);
      if (gate.kind === "go") return { kind: "go", actor: gate.actor };
      if (gate.kind === "disable")
        return {
          kind: "stop",
          error: "The credential that created this eval was revoked or has expired; the items not yet started were not run.",
        };
      return { kind: "later" };
    },

    async start(actor, request, sessionId) {
      const body = { ...request, input: request.input } as CreateSessionRequest;
      try {
        await createSession(actor as Actor, body, sessionId);
        return { kind: "started" };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.status === 429 || error.code === "tenant_suspended" || error.status === 503)
          return { kind: "later", retryAfterMs: (error.retryAfterSeconds ?? 1) * 1_000 };
        // A start repeated after a crash: the session the first try created goes on.
        if (error.code === "conflict" && (await new SessionClient(env, (actor as Actor).principal.tenantId, sessionId).find()))
          return { kind: "started" };
        if (error.status >= 500) throw error;
        return { kind: "refused", error: error.detail };
      }
    },

    async read(tenantId, sessionId) {
      const client = new SessionClient(env, tenantId, sessionId);
      const session = await client.find();
      if (!session) return null;
      const final = FINAL_STATUSES.includes(session.status);
      const outcome: SessionOutcome = {
        status: session.status,
        final,
        answer: null,
        output: session.output ?? null,
        toolCalls: [],
        steps: session.usage.steps,
        costUsd: costOf(session.usage, priceFor(loadConfig(env).prices, session.model)),
      };
      if (!final) return outcome;
      outcome.answer = (await transcriptEnds(client)).answer;
      outcome.toolCalls = await toolCalls(client);
      return outcome;
    },

    async cancel(tenantId, sessionId) {
      try {
        await new SessionClient(env, tenantId, sessionId).cancel();
      } catch (error) {
        // Ended meanwhile, or never started: nothing to cancel.
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
      }
    },
  };
}

async function toolCalls(client: SessionClient): Promise<{ name: string; input: unknown }[]> {
  const calls: { name: string; input: unknown }[] = [];
  let cursor: string | null = null;
  do {
    const page = await client.listToolCalls(cursor, PAGE, MAX_READ_CHARS);
    for (const call of page.data) calls.push({ name: call.name, input: call.input });
    cursor = page.next_cursor;
  } while (cursor !== null && calls.length < 1_000);
  return calls;
}
