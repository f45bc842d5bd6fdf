/**
 * A sub-agent draws on its parent's remaining session budget: children started together split
 * what the family has left, each waits in `waiting_budget` at its share, and the family's tokens
 * stay within the parent's `max_tokens_per_session`. Raising the parent reaches the children,
 * and a child's end leaves its unused share to the others.
 */
import { describe, expect, it } from "vitest";
import { totalTokens } from "../../../src/session-config/types";
import { callJson, readProblem } from "../../support/api";
import { cancelQuietly, createSession, toolUse, waitForStatus } from "../sessions/helpers";
import { admin, answer } from "../usage/helpers";
import { agentOn, agentTool, author, childrenOf, eventually, PROVIDERS, session } from "./helpers";

/** Each call bills 15 tokens. */
const USAGE = { input_tokens: 10, output_tokens: 5 };
const LEAD_USAGE = { input_tokens: 5, output_tokens: 5 };

const loops = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ reply: { content: [toolUse(`toolu_${prefix}${i}`, "get_time")], usage: USAGE } }));

describe("a sub-agent family's budget", () => {
  it("splits the parent's remaining tokens among the children it starts together, and a raise of the parent lets the family finish within it", async () => {
    const who = await author();
    const worker = await agentOn(who, PROVIDERS[0], { tools: [{ type: "builtin", name: "get_time" }] });
    // Three calls each reach the share of 45; the two answers are taken after the raise.
    await worker.model.script(...loops("w", 6), answer(USAGE), answer(USAGE));
    const lead = await agentOn(who, PROVIDERS[0], { tools: [agentTool("worker", worker.id)] });
    // The lead's first answer (10 tokens) starts two workers: 90 left, 45 each.
    await lead.model.script(
      {
        reply: {
          content: [toolUse("toolu_a", "worker", { input: "part a" }), toolUse("toolu_b", "worker", { input: "part b" })],
          usage: LEAD_USAGE,
        },
      },
      answer(LEAD_USAGE),
    );
    const root = await createSession(who, { agent: lead.id, input: "go", limits: { max_tokens_per_session: 100 } });
    const children = await eventually(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return childrenOf(who, root.id);
      },
      (rows) => rows.length === 2 && rows.every((row) => row.status === "waiting_budget"),
      30_000,
    );
    let family = 0;
    for (const child of children) {
      const shown = await session(who, child.id);
      expect(shown.limits.max_tokens_per_session).toBe(45);
      // 15, 30, 45: each stops at its share.
      expect(totalTokens(shown.usage)).toBe(45);
      family += totalTokens(shown.usage);
    }
    const parent = await waitForStatus(who, root.id, ["waiting_subagents"]);
    family += totalTokens(parent.usage);
    expect(family).toBeLessThanOrEqual(100);

    // The raise reaches the waiting children: each gets its spend plus a share of the 100 now left, and the family ends.
    const boss = await admin(who.tenantId);
    // A child's budget is its share: raising it past the share is refused (the parent is what to raise).
    const past = await callJson(`/v1/sessions/${children[0]!.id}`, "PATCH", { limits: { max_tokens_per_session: 100 } }, boss.headers);
    expect(past.status).toBe(400);
    expect((await readProblem(past)).errors?.[0]?.path).toBe("body.limits.max_tokens_per_session");
    const raised = await callJson(`/v1/sessions/${root.id}`, "PATCH", { limits: { max_tokens_per_session: 200 } }, boss.headers);
    expect(raised.status).toBe(200);
    const done = await waitForStatus(who, root.id, ["done", "failed"], 30_000);
    expect(done).toMatchObject({ status: "done", stop_reason: "end_turn" });
    let total = totalTokens(done.usage);
    for (const child of await childrenOf(who, root.id)) {
      const shown = await session(who, child.id);
      // At least its spend plus its share of what was left (95 at the raise; more once its sibling ended).
      expect(shown.status).toBe("done");
      expect(shown.limits.max_tokens_per_session).toBeGreaterThanOrEqual(60);
      expect(totalTokens(shown.usage)).toBe(60);
      total += totalTokens(shown.usage);
    }
    expect(total).toBe(140);
    expect(total).toBeLessThanOrEqual(200);
  }, 90_000);

  it("hands a finished child's unused share to the child still going", async () => {
    const who = await author();
    // The quick worker answers at once (15 tokens); the slow one loops until its share is spent.
    const quick = await agentOn(who, PROVIDERS[0]);
    await quick.model.script(answer(USAGE));
    const slow = await agentOn(who, PROVIDERS[0], { tools: [{ type: "builtin", name: "get_time" }] });
    await slow.model.script(...loops("s", 8));
    const lead = await agentOn(who, PROVIDERS[0], { tools: [agentTool("quick", quick.id), agentTool("slow", slow.id)] });
    await lead.model.script({
      reply: {
        content: [toolUse("toolu_q", "quick", { input: "quick" }), toolUse("toolu_s", "slow", { input: "slow" })],
        usage: LEAD_USAGE,
      },
    });
    const root = await createSession(who, { agent: lead.id, input: "go", limits: { max_tokens_per_session: 100 } });
    // 100 - 10 (the lead) - 15 (the quick one) = 75 for the slow one: five calls, not the three of its first share of 45.
    const shown = await eventually(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const rows = await childrenOf(who, root.id);
        return Promise.all(rows.map((row) => session(who, row.id)));
      },
      (rows) => rows.some((row) => row.status === "waiting_budget" && totalTokens(row.usage) === 75),
      30_000,
    );
    expect(shown.find((row) => row.status === "waiting_budget")?.limits.max_tokens_per_session).toBe(75);
    await cancelQuietly(who, root.id);
  }, 60_000);
});
