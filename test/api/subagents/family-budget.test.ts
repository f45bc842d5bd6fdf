/**
 * A sub-agent draws on its parent's remaining session budget: children started together split
 * what the family has left, each waits in `waiting_budget` at its share, and the family's tokens
 * stay within the parent's `max_tokens_per_session`.
 */
import { describe, expect, it } from "vitest";
import { totalTokens } from "../../../src/session-config/types";
import { cancelQuietly, createSession, toolUse, waitForStatus } from "../sessions/helpers";
import { agentOn, agentTool, author, childrenOf, eventually, PROVIDERS, session } from "./helpers";

/** Each call bills 15 tokens. */
const USAGE = { input_tokens: 10, output_tokens: 5 };

describe("a sub-agent family's budget", () => {
  it("splits the parent's remaining tokens among the children it starts together, and stays within the parent's budget", async () => {
    const who = await author();
    const worker = await agentOn(who, PROVIDERS[0], { tools: [{ type: "builtin", name: "get_time" }] });
    await worker.model.script(
      ...Array.from({ length: 8 }, (_, i) => ({ reply: { content: [toolUse(`toolu_w${i}`, "get_time")], usage: USAGE } })),
    );
    const lead = await agentOn(who, PROVIDERS[0], { tools: [agentTool("worker", worker.id)] });
    // The lead's first answer (10 tokens) starts two workers: 90 left, 45 each.
    await lead.model.script({
      reply: {
        content: [toolUse("toolu_a", "worker", { input: "part a" }), toolUse("toolu_b", "worker", { input: "part b" })],
        usage: { input_tokens: 5, output_tokens: 5 },
      },
    });
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
    await cancelQuietly(who, root.id);
  }, 60_000);
});
