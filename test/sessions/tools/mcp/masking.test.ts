/**
 * A hostile MCP server sends the session's header values back in every form a program produces
 * without trying (test/support/secret-forms.ts): as a tool's output, split over two blocks, in
 * its listed tools, in a listing error. None of them reaches the tool call, the events, the
 * model's requests, the session or the log lines.
 */
import { inject } from "vitest";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MASKED_VALUE } from "../../../../src/shared/secret-mask";
import { call } from "../../../support/api";
import { mockModel, uniqueKey } from "../../../support/mock-client";
import { leaksIn } from "../../../support/secret-forms";
import { caller, type Caller, createSession, getJson, text, toolCallsOf, toolUse, waitForStatus } from "../../../api/sessions/helpers";

afterEach(() => vi.restoreAllMocks());

/** Every string in a JSON value, keys included: a form is looked for in what a reader decodes. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
}

/** Each `data:` line of a finished session's whole event stream, decoded. */
async function eventStrings(who: Caller, id: string): Promise<string[]> {
  const res = await call(`/v1/sessions/${id}/events?after=0`, { headers: { ...who.headers, Accept: "text/event-stream" } });
  expect(res.status).toBe(200);
  const lines = (await res.text()).split("\n").filter((line) => line.startsWith("data:"));
  expect(lines.length).toBeGreaterThan(2);
  return lines.flatMap((line) => stringsOf(JSON.parse(line.slice(5))));
}

/** Every console line written from now on, decoded when it is JSON. */
function captureLogs(): () => string[] {
  const spies = [
    vi.spyOn(console, "log"),
    vi.spyOn(console, "warn"),
    vi.spyOn(console, "error"),
    vi.spyOn(console, "info"),
    vi.spyOn(console, "debug"),
  ];
  return () =>
    spies.flatMap((spy) =>
      spy.mock.calls.flatMap((args) =>
        args.flatMap((arg) => {
          const line = typeof arg === "string" ? arg : String(arg instanceof Error ? arg.stack : JSON.stringify(arg));
          try {
            return [line, ...stringsOf(JSON.parse(line))];
          } catch {
            return [line];
          }
        }),
      ),
    );
}

function expectNoLeak(where: string, texts: string[], ...secrets: string[]): void {
  for (const secret of secrets) expect(leaksIn(texts.join("\n"), secret), `${where} shows a form of ${secret}`).toEqual([]);
}

describe("MCP header values in the answers of a hostile server", () => {
  it("reach neither the tool call, nor the events, the model's requests, the session or the logs, in any form", async () => {
    const auth = `Bearer sk-${crypto.randomUUID()}`;
    const apiKey = `key_${crypto.randomUUID().replace(/-/g, "")}`;
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const url = `${inject("mcpUrl")}/mcp/${uniqueKey("leak")}`;
    await model.script({ reply: { content: [toolUse("toolu_leak", "docs__leak")] } }, { reply: { content: [text("seen")] } });
    const logs = captureLogs();
    const session = await createSession(who, {
      input: "leak",
      model: model.key,
      tools: [{ type: "mcp", name: "docs", url, headers: { Authorization: auth, "X-Api-Key": apiKey } }],
    });
    const final = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(final.status, final.error ?? "").toBe("done");

    const [leak] = await toolCallsOf(who, session.id);
    // The server did answer every form: the lines are there, each with its value masked.
    expect(leak!.output).toContain(`authorization value base64: ${MASKED_VALUE}`);
    expect(leak!.output).toContain(`x-api-key token hex dump: ${MASKED_VALUE}`);
    expect(leak!.output).toContain(`authorization split: ${MASKED_VALUE}`);
    const requests = await model.requests();
    expect(requests).toHaveLength(2);
    const offered = (requests[0]!.body as { tools: { name: string; description: string }[] }).tools.find(
      (tool) => tool.name === "docs__leak",
    );
    expect(offered!.description).toContain(`Sends back ${MASKED_VALUE}`);

    expectNoLeak("the tool call", stringsOf(leak), auth, apiKey);
    expectNoLeak("the events", await eventStrings(who, session.id), auth, apiKey);
    expectNoLeak("the model's requests", stringsOf(requests.map((request) => request.body)), auth, apiKey);
    expectNoLeak("the session", stringsOf(await getJson(who, `/v1/sessions/${session.id}`)), auth, apiKey);
    expectNoLeak("the logs", logs(), auth, apiKey);
  });

  it("reach neither the run's error, nor the events or the logs when the server's listing fails with them", async () => {
    const auth = `Bearer sk-${crypto.randomUUID()}`;
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const url = `${inject("mcpUrl")}/mcp/${uniqueKey("leak-list-")}`;
    const logs = captureLogs();
    const session = await createSession(who, {
      input: "go",
      model: model.key,
      tools: [{ type: "mcp", name: "docs", url, headers: { Authorization: auth } }],
    });
    const final = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(final).toMatchObject({
      status: "failed",
      stop_reason: "tools_unavailable",
      error: expect.stringContaining(`cannot list for ${MASKED_VALUE}`),
    });
    expect(logs().some((line) => line.includes("mcp_discovery_failed"))).toBe(true);

    expectNoLeak("the session", stringsOf(final), auth);
    expectNoLeak("the events", await eventStrings(who, session.id), auth);
    expectNoLeak("the logs", logs(), auth);
    expect(await model.requests()).toEqual([]);
  });

  it("end the run when a listed tool's name carries one, since a name cannot be masked", async () => {
    const auth = `Bearer sk-${crypto.randomUUID()}`;
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const url = `${inject("mcpUrl")}/mcp/${uniqueKey("leak-name-")}`;
    const session = await createSession(who, {
      input: "go",
      model: model.key,
      tools: [{ type: "mcp", name: "docs", url, headers: { Authorization: auth } }],
    });
    const final = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(final).toMatchObject({
      status: "failed",
      stop_reason: "tools_unavailable",
      error: expect.stringContaining(`MCP server "docs": a tool's name carries a header value`),
    });
    expectNoLeak("the session", stringsOf(final), auth);
    expect(await model.requests()).toEqual([]);
  });
});
