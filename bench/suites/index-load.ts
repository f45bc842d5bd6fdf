/**
 * Index load: how many requests reach a tenant's index per step of a run, and per API request,
 * counted in the running Worker through the inspector (see `support/call-counter.ts`); and the
 * arithmetic for a tenant with 10,000 sessions each taking a step per second.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { uniqueName } from "../../test/e2e/support/stack";
import { CallCounter, callsBetween } from "../support/call-counter";
import type { Table } from "../support/report";
import { fmt } from "../support/stats";
import type { World } from "../world";
import { runSession } from "../support/run-session";
import { STEP_OVERHEAD_STEPS } from "./step-overhead";

/**
 * The platform's `USAGE_REPORT_INTERVAL_MS` (src/sessions/object/report/report-policy.ts, a Workers module): a
 * running session's interval while a daily budget may count its usage, the worst case; with none, 5 minutes.
 */
const USAGE_REPORT_INTERVAL_MS = 20_000;
/** The tenant index's methods the gateway calls while it admits and serves a request. */
const GATEWAY_METHODS = new Set([
  "admitRequest",
  "admitApiKey",
  "admitExchangedToken",
  "getConfig",
  "getSessionSummary",
  "listSessions",
  "counts",
  "findApiKey",
  "touchApiKey",
  "beginIdempotent",
  "completeIdempotent",
  "releaseIdempotent",
  "admitRun",
  "acquireRun",
  "releaseRun",
  "tokensToday",
]);
/** Console events travel apart from command answers; this covers their lag. */
const SETTLE_MS = 500;
const REQUEST_SAMPLES = 10;
/** The scenario: a tenant with this many sessions, each stepping once a second. */
export const BUSY_TENANT_SESSIONS = 10_000;
/** Roughly what one Durable Object serves per second (Cloudflare's documented soft figure). */
const OBJECT_REQUESTS_PER_SECOND = 1_000;
const TARGET_PER_STEP = 0.05;

export interface IndexLoadResult {
  /** Per run: calls into the index by method, from the create to the end of the run. */
  runs: Map<string, number>[];
  /** Calls into the index per request, by kind of request. */
  perRequest: { kind: string; calls: number }[];
  steps: number;
}

export async function measureIndexLoad(world: World, reps: number): Promise<IndexLoadResult> {
  const counter = await CallCounter.attach(world.platform, [{ name: "TenantIndex", methods: "all" }]);
  try {
    const tenant = uniqueName("bench-index");
    const client = await world.client(tenant);
    const admin = await world.client(tenant, ["sessions:read", "sessions:write", "tenant:admin"]);
    const result: IndexLoadResult = { runs: [], perRequest: [], steps: STEP_OVERHEAD_STEPS };
    for (let rep = 0; rep < reps; rep++) {
      const before = counter.snapshot();
      await runSession(world, "platform", STEP_OVERHEAD_STEPS, client);
      await sleep(SETTLE_MS);
      result.runs.push(callsBetween(before, counter.snapshot()));
    }
    const session = await client.expect<{ id: string }>(201, "POST", "/v1/sessions", {});
    const key = await admin.expect<{ key: string }>(201, "POST", "/v1/api-keys", { name: "bench", scopes: ["sessions:read"] });
    const withKey = async () => {
      const res = await fetch(`${world.platform.url}/v1/sessions/${session.id}`, { headers: { authorization: `Bearer ${key.key}` } });
      await res.arrayBuffer();
    };
    const kinds: [string, () => Promise<unknown>][] = [
      ["`GET /v1/sessions/{id}` with a JWT", () => client.getSession(session.id)],
      ["`GET /v1/sessions/{id}` with an API key", withKey],
      ["`POST /v1/sessions` without input", () => client.expect(201, "POST", "/v1/sessions", {})],
      ["`GET /v1/sessions` (a page)", () => client.expect(200, "GET", "/v1/sessions")],
    ];
    for (const [kind, send] of kinds) {
      const before = counter.snapshot();
      for (let i = 0; i < REQUEST_SAMPLES; i++) await send();
      await sleep(SETTLE_MS);
      const calls = [...callsBetween(before, counter.snapshot()).values()].reduce((a, b) => a + b, 0);
      result.perRequest.push({ kind, calls: calls / REQUEST_SAMPLES });
    }
    return result;
  } finally {
    await counter.detach();
  }
}

const methodOf = (name: string) => name.slice(name.indexOf(".") + 1);

export function indexLoadTables(result: IndexLoadResult): Table[] {
  const names = [...new Set(result.runs.flatMap((run) => [...run.keys()]))].sort();
  const perRun = (name: string) => result.runs.map((run) => run.get(name) ?? 0);
  const fromSessionObject = result.runs.map((run) =>
    [...run].filter(([name]) => !GATEWAY_METHODS.has(methodOf(name))).reduce((sum, [, n]) => sum + n, 0),
  );
  const perStep = Math.max(...fromSessionObject) / result.steps;
  const atScale = perStep * BUSY_TENANT_SESSIONS;
  return [
    {
      title: `Index load: tenant-index calls during one run of ${result.steps} steps`,
      columns: ["method", "caller", "calls per run", "per step"],
      rows: [
        ...names.map((name) => {
          const counts = perRun(name);
          return [
            methodOf(name),
            GATEWAY_METHODS.has(methodOf(name)) ? "gateway" : "session object",
            counts.join(", "),
            fmt(Math.max(...counts) / result.steps, 2),
          ];
        }),
        ["**from the session object, in all**", "session object", fromSessionObject.join(", "), `**${fmt(perStep, 2)}**`],
      ],
      notes: [
        `${result.runs.length} runs; "calls per run" lists each run's count. The gateway's calls come from the request that created the session (with an Idempotency-Key) and the status requests at the end of the run.`,
        `At ${fmt(perStep, 2)} index calls per step, a tenant with ${BUSY_TENANT_SESSIONS.toLocaleString("en-US")} sessions each taking a step per second sends its index ${fmt(atScale, 0)} requests per second from its session objects alone, before any API request; one Durable Object serves roughly ${OBJECT_REQUESTS_PER_SECOND.toLocaleString("en-US")} a second. The target, ≤ ${TARGET_PER_STEP} per step, would be ${fmt(TARGET_PER_STEP * BUSY_TENANT_SESSIONS, 0)} a second.`,
        `At steady state a running session that a daily budget may count reports its usage at most once every ${USAGE_REPORT_INTERVAL_MS / 1000} s (one that none counts, every 5 minutes; status changes at once), so a tenant with ${BUSY_TENANT_SESSIONS.toLocaleString("en-US")} sessions each taking a step per second sends its index at most ${fmt(BUSY_TENANT_SESSIONS / (USAGE_REPORT_INTERVAL_MS / 1000), 0)} reports a second from running sessions, ${fmt(1 / (USAGE_REPORT_INTERVAL_MS / 1000), 2)} per step, and less per step the faster they step; starts and ends add one call each per run, which is what a short run like this one mostly counts. \`test/sessions/index-load.test.ts\` checks the count.`,
        "`acquireRun` and `releaseRun` are counted as the gateway's: the session object calls them only when a session that waited or queued claims a run slot, which these runs never do.",
        "Counted in the running Worker with conditional breakpoints set through the inspector on every public method of `TenantIndex` (no change to the platform's code).",
      ],
    },
    {
      title: "Index load: tenant-index calls per API request",
      columns: ["request", "index calls per request"],
      rows: result.perRequest.map((r) => [r.kind, fmt(r.calls, 1)]),
      notes: [`${REQUEST_SAMPLES} requests of each kind, one after another.`],
    },
  ];
}
