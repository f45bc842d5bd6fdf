/**
 * A self-recursive agent: its one tool is an `agent` tool naming the agent itself, and its model
 * calls it ten times a run, so with the default limits (depth 3, ten children a run) one request
 * would grow a tree of about 1,100 sessions. The tree's root stops it at `max_sessions_per_tree`
 * (50 by default); within that, what the platform owes the other tenants is that the tree runs on
 * the tenant's own run slots and does not make their requests wait. Measured against the other
 * tenant's pace alone, in the same run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import { ACTIVE_STATUSES } from "../../src/session-config/types";
import type { ModelStep } from "../support/mock-protocol";
import { calibrate, expectWithinCalibration, timedWhile } from "./support/bystander";
import { say, waitForFinal } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";

const FAN_OUT = BUILTIN_DEFAULT_LIMITS.max_subagents_per_run;
/** Sessions of the whole tree at the default depth: 1 + 10 + 100 + 1,000. */
const TREE = 1 + FAN_OUT + FAN_OUT ** 2 + FAN_OUT ** 3;
/** How long the tree's growth is watched, the other tenant timed throughout. */
const WATCH_MS = 45_000;
const TREE_TIMEOUT_MS = 120_000;
const TEST_TIMEOUT_MS = 300_000;

describe("a self-recursive agent", () => {
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  // The tree keeps within its run slots, and its starts within their share of the isolate
  // (src/sessions/child-starts.ts): the other tenant's p99 was 11.1 s before (docs/limits.md).
  it(
    "grows its tree on its tenant's run slots without slowing another tenant",
    async () => {
      const tenantId = uniqueName("recursive");
      const ops = await stack.client("platform", "e2e-ops", ["platform:admin"]);
      // The tenant has the platform's defaults, as a tenant would (the suite's are generous).
      const { max_concurrent_runs, requests_per_minute } = BUILTIN_DEFAULT_LIMITS;
      await ops.expect(200, "PUT", `/v1/admin/tenants/${tenantId}/limits`, { max_concurrent_runs, requests_per_minute });
      const attacker = await stack.client(tenantId, "e2e-user", ["sessions:read", "sessions:write", "agents:write"]);
      const bystander = await stack.client(uniqueName("bystander"));
      const model = stack.mock.model(uniqueName("model"));
      const fanOut: ModelStep = {
        reply: {
          content: Array.from({ length: FAN_OUT }, (_, i) => ({
            type: "tool_use" as const,
            id: `toolu_${i}`,
            name: "self",
            input: { input: `part ${i}` },
          })),
        },
      };
      // Every session's first answer calls itself ten times; whatever comes later ends its run.
      await model.script({ ...fanOut, repeat: TREE }, ...Array.from({ length: 3 }, () => ({ ...say("done"), repeat: 10_000 })));
      const agent = await attacker.expect<{ id: string }>(201, "POST", "/v1/agents", {
        name: uniqueName("self")
          .replace(/[^A-Za-z0-9_-]/g, "_")
          .slice(0, 60),
        model: model.key,
      });
      await attacker.expect(200, "PATCH", `/v1/agents/${agent.id}`, {
        tools: [{ type: "agent", name: "self", description: "Asks itself.", agent: agent.id }],
      });

      const calibration = await calibrate(bystander);
      const running: number[] = [];
      let rootId = "";
      const latencies = await timedWhile(bystander, async () => {
        rootId = (await attacker.createSession({ agent: agent.id, input: "go" } as never)).id;
        // The tree's growth, watched for a while: how many of its sessions run at once.
        for (const until = Date.now() + WATCH_MS; Date.now() < until;) {
          const page = await attacker.expect<{ data: unknown[] }>(200, "GET", "/v1/sessions?status=running&limit=100");
          running.push(page.data.length);
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      });
      const tree = (await attacker.expect<{ tree: { sessions: number; model_calls: number } }>(200, "GET", `/v1/sessions/${rootId}`)).tree;
      console.log(
        `sessions running at once, each second: ${running.join(", ")}; ${(await model.requests()).length} model calls; ` +
          `the root's count: ${JSON.stringify(tree)}`,
      );
      expectWithinCalibration(latencies, calibration);
      const listed = await attacker.expect<{ data: unknown[] }>(200, "GET", "/v1/sessions?limit=100");
      // The whole tree stops at its sessions' budget, counted by its root (src/sessions/object/subagents/tree.ts).
      expect(listed.data.length).toBeLessThanOrEqual(BUILTIN_DEFAULT_LIMITS.max_sessions_per_tree);
      expect(tree.sessions).toBe(listed.data.length);

      // Cancelling the root reaches the whole tree; at its budget the tree may have ended by itself already (409).
      const cancel = await attacker.request("POST", `/v1/sessions/${rootId}/cancel`);
      expect([200, 409]).toContain(cancel.status);
      const final = await waitForFinal(attacker, rootId, TREE_TIMEOUT_MS);

      expect(["cancelled", "done", "failed"], stack.logs()).toContain(final.status);
      // ...every level of it, from each session's alarm: in the end no session of the tenant is active.
      const activeLeft = async () => {
        let left = 0;
        for (const status of ACTIVE_STATUSES)
          left += (await attacker.expect<{ data: unknown[] }>(200, "GET", `/v1/sessions?status=${status}&limit=100`)).data.length;
        return left;
      };
      let left = await activeLeft();
      for (const until = Date.now() + TREE_TIMEOUT_MS; left > 0 && Date.now() < until; left = await activeLeft()) {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(left, stack.logs()).toBe(0);
      // The tree grew past the slots it may use, and never ran more sessions at once than them.
      expect(listed.data.length).toBeGreaterThan(max_concurrent_runs);
      expect(Math.max(...running)).toBeLessThanOrEqual(max_concurrent_runs);
    },
    TEST_TIMEOUT_MS,
  );
});
