/**
 * Scenario 7: many sessions of several tenants start at the same moment through the gateway.
 * All of them finish, no request gets a 5xx, and no tenant sees another tenant's sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "./support/api-client";
import { historyProblems, textOf } from "./support/history";
import { mapLimit } from "./support/pool";
import { callTools, FINAL_STATUSES, say } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { waitFor } from "./support/wait";

const TENANTS = 4;
const SESSIONS_PER_TENANT = 50;
const TOTAL = TENANTS * SESSIONS_PER_TENANT;
const FINISH_TIMEOUT_MS = 150_000;
/** Reads after the start are spread out; the start itself is all at once. */
const READ_CONCURRENCY = 25;
const TEST_TIMEOUT_MS = 300_000;

interface Started {
  id: string;
  tenant: number;
  n: number;
}

describe(`load: ${TOTAL} sessions of ${TENANTS} tenants started at once`, () => {
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it(
    "finishes every session with no 5xx and keeps every tenant's sessions to itself",
    async () => {
      const admins: ApiClient[] = await Promise.all(
        Array.from({ length: TENANTS }, () => stack.client(uniqueName("load-tenant"), "load-admin", ["tenant:admin"])),
      );
      const models = await mapLimit(
        Array.from({ length: TOTAL }, (_, n) => n),
        READ_CONCURRENCY,
        async (n) => {
          const model = stack.mock.model(uniqueName(`load-${n}`));
          await model.script(callTools([[`toolu_load_${n}`, "get_time"]]), say(`load ${n} done`));
          return model.key;
        },
      );

      const creates = await Promise.all(
        models.map((model, n) =>
          admins[n % TENANTS]!.request<{ id: string }>(
            "POST",
            "/v1/sessions",
            { input: `load ${n}`, model, tools: [{ type: "builtin", name: "get_time" }] },
            { "idempotency-key": crypto.randomUUID() },
          ),
        ),
      );
      expect(creates.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text}`)).toEqual([]);
      const started: Started[] = creates.map((r, n) => ({ id: r.body.id, tenant: n % TENANTS, n }));

      // Each tenant's own list shows exactly its sessions, and all of them end.
      for (const [tenant, admin] of admins.entries()) {
        const own = new Set(started.filter((s) => s.tenant === tenant).map((s) => s.id));
        const listed = await waitFor(
          async () => {
            const list = await admin.listSessions();
            return list.length === own.size && list.every((s) => FINAL_STATUSES.includes(s.status)) ? list : undefined;
          },
          { timeoutMs: FINISH_TIMEOUT_MS, intervalMs: 500, what: `the ${own.size} sessions of tenant ${tenant} to end` },
        );
        expect(new Set(listed.map((s) => s.id))).toEqual(own);
      }

      const problems = await mapLimit(started, READ_CONCURRENCY, async ({ id, tenant, n }) => {
        const admin = admins[tenant]!;
        const session = await admin.getSession(id);
        const messages = await admin.messages(id);
        const found: string[] = [];
        if (session.status !== "done") found.push(`${id}: ${session.status} (${session.error})`);
        if (textOf(messages[messages.length - 1]) !== `load ${n} done`) found.push(`${id}: wrong last message`);
        found.push(...historyProblems(messages, await admin.toolCalls(id)).map((p) => `${id}: ${p}`));
        return found;
      });
      expect(problems.flat(), stack.logs()).toEqual([]);

      // Another tenant's session is simply not there, even for that tenant's admin.
      const crossReads = await mapLimit(started, READ_CONCURRENCY, async ({ id, tenant }) => {
        const other = admins[(tenant + 1) % TENANTS]!;
        const [session, messages] = await Promise.all([
          other.request("GET", `/v1/sessions/${id}`),
          other.request("GET", `/v1/sessions/${id}/messages`),
        ]);
        return [session.status, messages.status];
      });
      expect(new Set(crossReads.flat())).toEqual(new Set([404]));

      const statuses = admins.flatMap((a) => a.statuses);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
