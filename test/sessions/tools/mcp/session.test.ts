/**
 * MCP tools through the public API, in workerd, against a real MCP server (the SDK's server side,
 * started by the global setup): discovery, calls, errors, narrowing, and credentials that no
 * answer shows.
 */
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import type { Session } from "../../../../src/session-config/types";
import { callJson, readProblem } from "../../../support/api";
import { mockModel, uniqueKey } from "../../../support/mock-client";
import { caller, createSession, getJson, text, toolCallsOf, toolUse, waitForStatus } from "../../../api/sessions/helpers";

const TOKEN = "Bearer sk-mcp-secret-0123456789";

interface RecordedCall {
  tool: string;
  arguments: Record<string, unknown>;
  authorization: string | null;
}

function mcpServer(key = uniqueKey("mcp")) {
  const base = inject("mcpUrl");
  return {
    url: `${base}/mcp/${key}`,
    async calls(): Promise<RecordedCall[]> {
      return ((await (await fetch(`${base}/_calls/${key}`)).json()) as { calls: RecordedCall[] }).calls;
    },
  };
}

/** The tool names the model was offered in its n-th request. */
async function offered(model: ReturnType<typeof mockModel>, n = 0): Promise<string[]> {
  const body = (await model.requests())[n]!.body as { tools?: { name: string }[] };
  return (body.tools ?? []).map((tool) => tool.name);
}

describe("MCP tools", () => {
  it("lists the server's tools when the run starts and calls one, with the session's headers", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const server = mcpServer();
    await model.script(
      { reply: { content: [toolUse("toolu_add", "docs__add", { a: 2, b: 3 })] } },
      { reply: { content: [text("5 it is")] } },
    );
    await createSessionAndWait();

    async function createSessionAndWait() {
      const session = await createSession(who, {
        input: "add 2 and 3",
        model: model.key,
        tools: [
          { type: "builtin", name: "get_time" },
          { type: "mcp", name: "docs", url: server.url, headers: { Authorization: TOKEN } },
        ],
      });
      const final = await waitForStatus(who, session.id, ["done", "failed"]);
      expect(final.status, final.error ?? "").toBe("done");
      const [call] = await toolCallsOf(who, session.id);
      expect(call).toMatchObject({ name: "docs__add", status: "done", is_error: false, output: "5" });
    }

    expect(await offered(model)).toEqual([
      "get_time",
      "docs__echo",
      "docs__add",
      expect.stringMatching(/^docs__docs_search_[0-9a-z]{8}$/),
      "docs__whoami",
      "docs__fail",
      "docs__throws",
      "docs__charge",
      "docs__sync_catalog",
      "docs__leak",
    ]);
    expect(await server.calls()).toEqual([expect.objectContaining({ tool: "add", arguments: { a: 2, b: 3 }, authorization: TOKEN })]);
  });

  it("offers only allowed_tools, and checks input against the server's schema before calling", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const server = mcpServer();
    await model.script({ reply: { content: [toolUse("toolu_bad", "docs__echo", { text: 42 })] } }, { reply: { content: [text("ok")] } });
    const session = await createSession(who, {
      input: "echo",
      model: model.key,
      tools: [{ type: "mcp", name: "docs", url: server.url, allowed_tools: ["echo", "add"] }],
    });
    await waitForStatus(who, session.id, ["done"]);
    expect(await offered(model)).toEqual(["docs__echo", "docs__add"]);
    const [call] = await toolCallsOf(who, session.id);
    expect(call).toMatchObject({ status: "error", is_error: true, output: expect.stringContaining("invalid input") });
    expect(await server.calls()).toEqual([]);
  });

  it("gives the server's error result and its protocol errors to the model, and the run goes on", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const server = mcpServer();
    await model.script(
      { reply: { content: [toolUse("toolu_fail", "docs__fail"), toolUse("toolu_throw", "docs__throws")] } },
      { reply: { content: [text("both failed")] } },
    );
    const session = await createSession(who, { input: "try", model: model.key, tools: [{ type: "mcp", name: "docs", url: server.url }] });
    expect((await waitForStatus(who, session.id, ["done", "failed"])).status).toBe("done");
    const calls = await toolCallsOf(who, session.id);
    expect(calls[0]).toMatchObject({ is_error: true, output: "the tool failed on purpose" });
    expect(calls[1]).toMatchObject({
      is_error: true,
      output: expect.stringMatching(/^MCP server "docs": answered error -?\d+: .*handler threw/),
    });
  });

  it("checks each result against the outputSchema the run found, though the call goes over another connection", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const server = mcpServer(uniqueKey("typed"));
    await model.script(
      {
        reply: {
          content: [
            toolUse("toolu_valid", "docs__weather", { mode: "valid" }),
            toolUse("toolu_invalid", "docs__weather", { mode: "invalid" }),
            toolUse("toolu_none", "docs__weather", { mode: "none" }),
          ],
        },
      },
      { reply: { content: [text("checked")] } },
    );
    const session = await createSession(who, {
      input: "weather",
      model: model.key,
      tools: [{ type: "mcp", name: "docs", url: server.url, allowed_tools: ["weather"] }],
    });
    expect((await waitForStatus(who, session.id, ["done", "failed"])).status).toBe("done");
    const [valid, invalid, none] = await toolCallsOf(who, session.id);
    expect(valid).toMatchObject({ is_error: false, output: '{"temp":21}' });
    expect(invalid).toMatchObject({
      is_error: true,
      output: expect.stringMatching(/^MCP server "docs": the result's structuredContent does not match the tool's outputSchema: .*temp/),
    });
    expect(none).toMatchObject({ is_error: true, output: expect.stringContaining("has no structuredContent") });
    expect((await server.calls()).map((call) => call.arguments)).toEqual([{ mode: "valid" }, { mode: "invalid" }, { mode: "none" }]);
  });

  it("never shows the header values: not in the session, not in a replay, not in what a server echoes", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const server = mcpServer();
    await model.script({ reply: { content: [toolUse("toolu_who", "docs__whoami")] } }, { reply: { content: [text("done")] } });
    const body = {
      input: "who am I",
      model: model.key,
      tools: [{ type: "mcp", name: "docs", url: server.url, headers: { Authorization: TOKEN } }],
    };
    const headers = { ...who.headers, "Idempotency-Key": uniqueKey("idem") };
    const first = await callJson("/v1/sessions", "POST", body, headers);
    const created = (await first.json()) as Session;
    await waitForStatus(who, created.id, ["done"]);
    const replay = await callJson("/v1/sessions", "POST", body, headers);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    const read = await getJson<Session>(who, `/v1/sessions/${created.id}`);
    const calls = await toolCallsOf(who, created.id);
    for (const text of [JSON.stringify(created), await replay.text(), JSON.stringify(read), JSON.stringify(calls)]) {
      expect(text).not.toContain("sk-mcp-secret");
    }
    expect(read.tools[0]).toMatchObject({ headers: { Authorization: "********" } });
    expect(calls[0]!.output).toBe("authorization: ********");
    expect((await server.calls())[0]!.authorization).toBe(TOKEN);
  });

  it("ends the run with tools_unavailable when a server refuses to start a session", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, {
      input: "go",
      model: model.key,
      tools: [{ type: "mcp", name: "gone", url: `${inject("mcpUrl")}/not-mcp` }],
    });
    const final = await waitForStatus(who, session.id, ["failed", "done"]);
    expect(final).toMatchObject({
      status: "failed",
      stop_reason: "tools_unavailable",
      error: expect.stringContaining('MCP server "gone"'),
    });
    expect(await model.requests()).toEqual([]);
  });

  it("refuses at creation a URL the guard refuses, and a header the platform sets", async () => {
    const who = await caller();
    const res = await callJson(
      "/v1/sessions",
      "POST",
      { tools: [{ type: "mcp", name: "docs", url: "https://169.254.169.254/mcp", headers: { "Mcp-Session-Id": "x" } }] },
      who.headers,
    );
    expect(res.status).toBe(400);
    const problem = await readProblem(res);
    expect(problem.errors?.map((e) => e.path)).toEqual(expect.arrayContaining(["body.tools.0.headers.Mcp-Session-Id"]));
  });
});
