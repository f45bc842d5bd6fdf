/**
 * The platform's Worker as the benchmarks run it: the production entry, unchanged, behind two
 * routes of their own that no deployed Worker has (it exists only in the benchmarks' config):
 *
 *   GET  /__bench/agents/{tenant}/{session}   reads a session straight from its session object, with no
 *                                             gateway in front, to measure what the gateway adds
 *   POST /__bench/index/{tenant}/sessions     `{ count, created_by }`: index rows for sessions
 *                                             with no session object behind them, to fill a tenant's list
 *                                             fast (a real create costs ~17 ms of CPU here)
 */
import { sessionStub, tenantIndexStub } from "../../src/objects";
import { EMPTY_USAGE, type SessionResult, type Session } from "../../src/sessions/types";
import { newSessionId } from "../../src/sessions/ids";
import type { Env } from "../../src/env";
import platform from "../../src/index";

// Every Durable Object class the production entry exports, so a new one needs no change here.
export * from "../../src/index";

const PREFIX = "/__bench/";
/** Reports in flight at once while filling; the index takes them one at a time anyway. */
const FILL_CONCURRENCY = 32;
const MAX_FILL = 10_000;

export default {
  async fetch(request, env, ctx) {
    // A substring test first, so the gateway's own requests pay next to nothing for these routes.
    if (!request.url.includes(PREFIX)) return platform.fetch(request, env, ctx);
    const [kind, tenantId, rest] = new URL(request.url).pathname.slice(PREFIX.length).split("/").map(decodeURIComponent);
    if (kind === "agents" && tenantId && rest && request.method === "GET") return readSession(env, tenantId, rest);
    if (kind === "index" && tenantId && rest === "sessions" && request.method === "POST") return fillIndex(env, tenantId, await request.json());
    return new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<Env>;

async function readSession(env: Env, tenantId: string, sessionId: string): Promise<Response> {
  const result = (await sessionStub(env, tenantId, sessionId).get()) as SessionResult<Session>;
  return result.ok ? Response.json(result.value) : Response.json(result, { status: 404 });
}

/** Reports `count` idle sessions to the tenant's index, as each new session object's first report would. */
async function fillIndex(env: Env, tenantId: string, body: { count?: unknown; created_by?: unknown }): Promise<Response> {
  const count = Number(body.count);
  if (!Number.isInteger(count) || count < 1 || count > MAX_FILL || typeof body.created_by !== "string") {
    return new Response(`need { count: 1..${MAX_FILL}, created_by }`, { status: 400 });
  }
  const index = tenantIndexStub(env, tenantId);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const now = new Date().toISOString();
      const usage = EMPTY_USAGE;
      const summary = { id: newSessionId(), created_by: body.created_by as string, status: "idle" as const, stop_reason: null, usage, created_at: now, updated_at: now, revision: 1 };
      await index.reportSession(tenantId, summary);
    }
  };
  await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
  return Response.json({ created: count }, { status: 201 });
}
