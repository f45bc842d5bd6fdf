/**
 * Scenario 6: sessions with tools run while the process is killed (-9) and restarted at
 * random moments, again and again. Afterwards every session has ended, its history is whole,
 * no at-most-once webhook was called twice, and the tenant index agrees with every session.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "./support/api-client";
import { callTools, DEFAULT_HOOK_OUTPUT, FINAL_STATUSES, say, waitForFinal, webhookTool } from "./support/scenario";
import { seededRandom, seedFromEnv } from "./support/random";
import { type AuditedSession, auditSession } from "./support/session-audit";
import { type Stack, startStack, uniqueName } from "./support/stack";
import { waitFor } from "./support/wait";

const SESSIONS = 20;
const TENANTS = 2;
const KILLS = 10;
/** Model answers with tool calls per session; then a final text. */
const TOOL_STEPS = 6;
/** Each model or webhook answer takes this long, so kills find calls in flight. */
const ANSWER_DELAY_MS = { min: 150, max: 1_200 };
/** Up time between restarts; a running alarm fires again about 1 s after a restart. */
const UP_TIME_MS = { min: 800, max: 3_500 };
/** At most this many sessions are cancelled on the way, each at a random moment. */
const MAX_CANCELS = 3;
const CANCEL_CHANCE = 0.35;
const FINISH_TIMEOUT_MS = 120_000;
const INDEX_AGREEMENT_TIMEOUT_MS = 30_000;
/** Kills and restarts take about a minute; the rest is the bounded waits above. */
const TEST_TIMEOUT_MS = 300_000;

const random = seededRandom(seedFromEnv());

describe(`chaos: ${SESSIONS} sessions through ${KILLS} kill -9 restarts (E2E_SEED=${random.seed})`, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  async function startSession(client: ApiClient, n: number): Promise<AuditedSession> {
    const model = stack.mock.model(uniqueName(`chaos-${n}`));
    const charge = stack.mock.hook(uniqueName(`charge-${n}`));
    const lookup = stack.mock.hook(uniqueName(`lookup-${n}`));
    const delay = () => random.between(ANSWER_DELAY_MS.min, ANSWER_DELAY_MS.max);
    const steps = Array.from({ length: TOOL_STEPS }, (_, k) =>
      k % 2 === 0
        ? callTools(
            [
              [`toolu_${n}_${k}_charge`, "charge"],
              [`toolu_${n}_${k}_lookup`, "lookup"],
            ],
            delay(),
          )
        : callTools(
            [
              [`toolu_${n}_${k}_lookup`, "lookup"],
              [`toolu_${n}_${k}_time`, "get_time"],
            ],
            delay(),
          ),
    );
    await model.script(...steps, say(`session ${n} is done`, delay()));
    for (const hook of [charge, lookup]) await hook.script(...Array.from({ length: 2 * TOOL_STEPS }, () => ({ delay_ms: delay() })));
    const session = await client.createSession({
      input: `chaos session ${n}`,
      model: model.key,
      tools: [webhookTool("charge", charge.url, true), webhookTool("lookup", lookup.url, false), { type: "builtin", name: "get_time" }],
    });
    return { id: session.id, client, model, atMostOnce: { name: "charge", hook: charge }, idempotent: { name: "lookup", hook: lookup } };
  }

  it(
    "ends every session whole, calls no at-most-once webhook twice, and keeps the index right",
    async () => {
      const clients = await Promise.all(Array.from({ length: TENANTS }, () => stack.client(uniqueName("chaos-tenant"))));
      const sessions = await Promise.all(Array.from({ length: SESSIONS }, (_, n) => startSession(clients[n % TENANTS]!, n)));

      const cancelled = new Set<string>();
      for (let kill = 0; kill < KILLS; kill++) {
        await new Promise((resolve) => setTimeout(resolve, random.between(UP_TIME_MS.min, UP_TIME_MS.max)));
        if (cancelled.size < MAX_CANCELS && random.next() < CANCEL_CHANCE) {
          const target = sessions[random.between(0, SESSIONS - 1)]!;
          const res = await target.client.request("POST", `/v1/sessions/${target.id}/cancel`, {});
          // 409: it had already ended, which is fine; anything else is not.
          expect([200, 409], res.text).toContain(res.status);
          if (res.status === 200) cancelled.add(target.id);
        }
        await stack.platform.restart("SIGKILL");
      }
      expect(stack.platform.starts - 1).toBeGreaterThanOrEqual(KILLS);

      const finals = await Promise.all(sessions.map((s) => waitForFinal(s.client, s.id, FINISH_TIMEOUT_MS)));
      for (const final of finals) {
        expect(final.status, `${final.id}: ${final.error}\n${stack.logs()}`).toBe(cancelled.has(final.id) ? "cancelled" : "done");
      }

      const audits = await Promise.all(sessions.map((s) => auditSession(s, DEFAULT_HOOK_OUTPUT)));
      expect(audits.flatMap((a) => a.problems)).toEqual([]);
      const cutOff = audits.reduce((sum, a) => sum + a.cutOff, 0);
      const interrupted = audits.reduce((sum, a) => sum + a.interrupted, 0);
      console.info(
        `chaos seed ${random.seed}: ${cutOff} calls cut off by kills, ${interrupted} at-most-once calls interrupted, ${cancelled.size} sessions cancelled`,
      );
      // The kills really landed on calls in flight; otherwise this test proved nothing.
      expect(cutOff).toBeGreaterThanOrEqual(KILLS);

      for (const client of clients) {
        const own = sessions.filter((s) => s.client === client);
        await waitFor(
          async () => {
            const listed = new Map((await client.listSessions()).map((s) => [s.id, s.status]));
            const actual = await Promise.all(own.map(async (s) => [s.id, (await client.getSession(s.id)).status] as const));
            const agrees =
              listed.size === own.length && actual.every(([id, status]) => listed.get(id) === status && FINAL_STATUSES.includes(status));
            return agrees ? true : undefined;
          },
          { timeoutMs: INDEX_AGREEMENT_TIMEOUT_MS, intervalMs: 500, what: "the tenant index to agree with every session" },
        );
      }
    },
    TEST_TIMEOUT_MS,
  );
});
