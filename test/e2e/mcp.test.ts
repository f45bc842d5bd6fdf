/**
 * MCP tool servers end to end: a real `wrangler dev` and a real MCP server (the SDK's server
 * side, its own Node process): discovery, a round trip, an error result, `allowed_tools`, a
 * server that disappears mid-run, and `kill -9` of the platform during an at-most-once call
 * (never sent again) and during an idempotent one (sent again), with the tool set unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { historyProblems } from "./support/history";
import { McpServerProcess } from "./support/mcp-process";
import { INTERRUPTED_BY_RESTART, say, waitForFinal } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";
import { waitFor } from "./support/wait";

const STEP_TIMEOUT_MS = 30_000;
/** After the run ended, a late second call would have come well within this. */
const QUIET_AFTER_END_MS = 2_000;

function call(id: string, name: string, input: Record<string, unknown>, delayMs = 0): ModelStep {
  return { ...(delayMs > 0 ? { delay_ms: delayMs } : {}), reply: { content: [{ type: "tool_use", id, name, input }] } };
}

describe("MCP tool servers", () => {
  let stack: Stack;
  let mcp: McpServerProcess;

  beforeAll(async () => {
    mcp = await McpServerProcess.start();
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
    await mcp?.kill();
  });

  async function offered(model: ReturnType<Stack["mock"]["model"]>, n: number): Promise<string[]> {
    const body = (await model.requests())[n]?.body as { tools?: { name: string }[] } | undefined;
    return (body?.tools ?? []).map((tool) => tool.name);
  }

  async function waitForCalls(key: string, count: number) {
    return waitFor(
      async () => {
        const calls = await mcp.calls(key);
        return calls.length >= count ? calls : undefined;
      },
      { timeoutMs: STEP_TIMEOUT_MS, intervalMs: 50, what: `${count} MCP calls under ${key}` },
    );
  }

  it("discovers the server's tools when the run starts and runs a call through", async () => {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    const key = uniqueName("docs");
    await model.script(call("toolu_add", "docs__add", { a: 20, b: 22 }), say("it is 42"));
    const session = await client.createSession({
      input: "add",
      model: model.key,
      tools: [{ type: "mcp", name: "docs", url: mcp.endpoint(key), headers: { Authorization: "Bearer e2e-token-123" } }],
    });
    const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);

    expect(final.status, stack.logs()).toBe("done");
    expect(final.tools[0]).toMatchObject({ headers: { Authorization: "********" } });
    expect(await offered(model, 0)).toEqual(
      expect.arrayContaining(["docs__echo", "docs__add", "docs__fail", "docs__charge", "docs__sync_catalog"]),
    );
    const [toolCall] = await client.toolCalls(session.id);
    expect(toolCall).toMatchObject({ name: "docs__add", status: "done", is_error: false, output: "42" });
    expect(await mcp.calls(key)).toEqual([
      expect.objectContaining({ tool: "add", arguments: { a: 20, b: 22 }, authorization: "Bearer e2e-token-123" }),
    ]);
  });

  it("gives a failing tool's error to the model, and the run goes on", async () => {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    await model.script(call("toolu_fail", "docs__fail", {}), say("it failed"));
    const session = await client.createSession({
      input: "try",
      model: model.key,
      tools: [{ type: "mcp", name: "docs", url: mcp.endpoint(uniqueName("docs")) }],
    });
    const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);

    expect(final.status, stack.logs()).toBe("done");
    expect((await client.toolCalls(session.id))[0]).toMatchObject({
      status: "error",
      is_error: true,
      output: "the tool failed on purpose",
    });
    expect(JSON.stringify((await model.requests())[1]?.body)).toContain("the tool failed on purpose");
  });

  it("offers only allowed_tools; a call to another of the server's tools is an unknown tool", async () => {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    const key = uniqueName("docs");
    await model.script(call("toolu_add", "docs__add", { a: 1, b: 2 }), say("not allowed"));
    const session = await client.createSession({
      input: "add",
      model: model.key,
      tools: [{ type: "mcp", name: "docs", url: mcp.endpoint(key), allowed_tools: ["echo"] }],
    });
    await waitForFinal(client, session.id, STEP_TIMEOUT_MS);

    expect(await offered(model, 0)).toEqual(["docs__echo"]);
    expect((await client.toolCalls(session.id))[0]).toMatchObject({ is_error: true, output: 'unknown tool "docs__add"' });
    expect(await mcp.calls(key)).toEqual([]);
  });

  it("gives an error result when the server disappears mid-run, and the run goes on", async () => {
    const doomed = await McpServerProcess.start();
    try {
      const client = await stack.client(uniqueName("tenant"));
      const model = stack.mock.model(uniqueName("model"));
      const key = uniqueName("gone");
      await model.script(
        call("toolu_1", "gone__echo", { text: "first" }),
        call("toolu_2", "gone__echo", { text: "second" }, 2_000),
        say("carried on"),
      );
      const session = await client.createSession({
        input: "echo twice",
        model: model.key,
        tools: [{ type: "mcp", name: "gone", url: doomed.endpoint(key) }],
      });
      await waitFor(async () => ((await doomed.calls(key)).length >= 1 ? true : undefined), {
        timeoutMs: STEP_TIMEOUT_MS,
        intervalMs: 50,
        what: "the first call",
      });
      await doomed.kill();
      const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);

      expect(final.status, stack.logs()).toBe("done");
      const calls = await client.toolCalls(session.id);
      expect(calls[0]).toMatchObject({ status: "done", output: "first" });
      expect(calls[1]).toMatchObject({ status: "error", is_error: true, output: expect.stringContaining('MCP server "gone"') });
      expect(historyProblems(await client.messages(session.id), calls)).toEqual([]);
    } finally {
      await doomed.kill();
    }
  });

  async function runUntilHeld(tool: string, input: Record<string, unknown>) {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    const key = uniqueName("shop");
    await mcp.hold(key, tool);
    await model.script(call("toolu_held", `shop__${tool}`, input), say("finished"));
    const session = await client.createSession({
      input: "go",
      model: model.key,
      tools: [{ type: "mcp", name: "shop", url: mcp.endpoint(key) }],
    });
    await waitForCalls(key, 1);
    await stack.platform.restart("SIGKILL");
    const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);
    await new Promise((resolve) => setTimeout(resolve, QUIET_AFTER_END_MS));
    return { client, model, key, session, final };
  }

  it("never calls an at-most-once MCP tool again after kill -9, and says it was interrupted", async () => {
    const { client, model, key, session, final } = await runUntilHeld("charge", { amount: 5 });

    expect(final.status, stack.logs()).toBe("done");
    expect(await mcp.calls(key)).toHaveLength(1);
    const [toolCall] = await client.toolCalls(session.id);
    expect(toolCall).toMatchObject({ name: "shop__charge", status: "error", is_error: true, output: INTERRUPTED_BY_RESTART });
    expect(historyProblems(await client.messages(session.id), [toolCall!])).toEqual([]);
    // The tool set saved when the run started is the one the model sees after the restart.
    expect(await offered(model, 1)).toEqual(await offered(model, 0));
  });

  it("calls an idempotent MCP tool again after kill -9, and its second answer is the result", async () => {
    const { client, model, key, session, final } = await runUntilHeld("sync_catalog", { n: 3 });

    expect(final.status, stack.logs()).toBe("done");
    const calls = await mcp.calls(key);
    expect(calls.map((c) => [c.tool, c.arguments])).toEqual([
      ["sync_catalog", { n: 3 }],
      ["sync_catalog", { n: 3 }],
    ]);
    const [toolCall] = await client.toolCalls(session.id);
    expect(toolCall).toMatchObject({ name: "shop__sync_catalog", status: "done", is_error: false, output: "synced 3" });
    expect(await offered(model, 1)).toEqual(await offered(model, 0));
  });
});
