/**
 * The discovery unit inside the session object: a server that cannot be reached is asked again with the
 * model call's backoff and ends the run after the last try; a new run lists the tools anew;
 * approvals apply to every tool of a server that asks for them.
 */
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS } from "../../../../src/limits";
import {
  createAndStart,
  getSession,
  runState,
  skipBackoff,
  toolCalls,
  unwrap,
  waitForStatus,
  newTestSession,
} from "../../../support/agent-session";
import { uniqueKey } from "../../../support/mock-client";

/** A loopback port nothing listens on: every connection is refused at once. */
const CLOSED = "http://127.0.0.1:9/mcp";

describe("discovery", () => {
  it("asks an unreachable server again after a backoff, and ends the run after the last try", async () => {
    const t = newTestSession();
    await createAndStart(t, "go", { tools: [{ type: "mcp", name: "down", url: CLOSED }] });
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      await waitForAttempts(attempt);
      expect(await skipBackoff(t)).toBeGreaterThan(0);
    }
    const final = await waitForStatus(t, ["failed"]);
    expect(final).toMatchObject({
      stop_reason: "tools_unavailable",
      error: expect.stringContaining(`(after ${MAX_ATTEMPTS} tries): MCP server "down"`),
    });
    expect(await t.model.requests()).toEqual([]);

    async function waitForAttempts(n: number) {
      const deadline = Date.now() + 10_000;
      while ((await runState(t)).attempts < n) {
        if (Date.now() > deadline) throw new Error(`attempt ${n} never came`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  });

  it("lists the tools again when a new run starts, and asks for approval of a server's tools", async () => {
    const t = newTestSession();
    const url = `${inject("mcpUrl")}/mcp/${uniqueKey("approve")}`;
    await t.model.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_a", name: "docs__echo", input: { text: "hi" } }] } },
      { reply: { content: [{ type: "text", text: "first" }] } },
      { reply: { content: [{ type: "text", text: "second" }] } },
    );
    await createAndStart(t, "one", { tools: [{ type: "mcp", name: "docs", url, requires_approval: true }] });
    await waitForStatus(t, ["waiting_approval"]);
    unwrap(await t.stub.approve("toolu_a"));
    await waitForStatus(t, ["done"]);
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", output: "hi" });
    const firstListing = await listedAt(t);
    unwrap(await t.stub.start("two"));
    await waitForStatus(t, ["done"]);
    expect(await listedAt(t)).not.toBe(firstListing);
    expect((await getSession(t)).status).toBe("done");
  });
});

async function listedAt(t: ReturnType<typeof newTestSession>): Promise<string> {
  const { runInDurableObject } = await import("cloudflare:test");
  return runInDurableObject(t.stub, (_instance, state) => state.storage.kv.get<{ discovered_at: string }>("run_tools")!.discovered_at);
}
