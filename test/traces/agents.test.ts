/**
 * Traces of agents' sessions through the public API: a session made from an agent names its run
 * after the agent, and a sub-agent's run is part of its parent's trace, its root span a child of
 * the `execute_tool` span of the call that started it. Every export is decoded strictly against
 * the official OTLP definitions.
 */
import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callJson } from "../support/api";
import { type MockHook, mockModel, mockHook, uniqueKey } from "../support/mock-client";
import { decodeTraceExport, type DecodedSpan } from "../support/otlp-decode";
import { caller, type Caller, createSession, post, text, toolUse, waitForStatus } from "../api/sessions/helpers";
import { createAgent } from "../api/agents/helpers";
import { agentTool, childrenOf, eventually, session as sessionOf } from "../api/subagents/helpers";

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

async function tracedAuthor(collector: MockHook): Promise<Caller> {
  const who = await caller(undefined, ["sessions:read", "sessions:write", "agents:write", "tenant:admin"]);
  const res = await callJson(
    "/v1/tenant/settings",
    "PUT",
    { webhook_origins: null, session_retention_days: null, traces: { endpoint: collector.url } },
    who.headers,
  );
  expect(res.status).toBe(200);
  return who;
}

/** Every span the collector received once `done` holds for them, each export decoded against the OTLP definitions. */
async function spansWhen(collector: MockHook, done: (spans: DecodedSpan[]) => boolean, timeoutMs = 20_000): Promise<DecodedSpan[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const spans = (await collector.requests()).flatMap((request) => decodeTraceExport(request.body_text));
    if (done(spans)) return spans;
    if (Date.now() > deadline) throw new Error(`still waiting; received: ${spans.map((span) => span.name).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const roots = (spans: DecodedSpan[]) => spans.filter((span) => span.attributes["gen_ai.operation.name"] === "invoke_agent");

describe("traces of agents' sessions", () => {
  it("name the run's root span after the agent the session (or its fork) was made from, with its id and name as attributes", async () => {
    const collector = mockHook(uniqueKey("otel"));
    await collector.script({ status: 200, body: {}, repeat: 20 });
    const who = await tracedAuthor(collector);
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("hello from the agent")] } });
    const agent = await createAgent(who, { name: "support_triage", model: model.key });
    const session = await createSession(who, { agent: agent.id, input: "hi" });
    expect((await waitForStatus(who, session.id, ["done", "failed"])).status).toBe("done");

    const spans = await spansWhen(collector, (all) => roots(all).length > 0);
    const [root] = roots(spans);
    expect(root!.name).toBe("invoke_agent support_triage");
    expect(root!.attributes).toMatchObject({
      "gen_ai.agent.id": agent.id,
      "gen_ai.agent.name": "support_triage",
      "gen_ai.conversation.id": session.id,
    });
    // The name is the traces' alone: the session shows its agent as before.
    expect(session.agent).toEqual({ id: agent.id, version: 1 });
    expect(session).not.toHaveProperty("agent_name");

    // A fork runs the same agent version, and its runs are named after it too.
    await model.script({ reply: { content: [text("hello again")] } });
    const forked = await post(who, `/v1/sessions/${session.id}/fork`, {});
    expect(forked.status).toBe(201);
    const fork = (await forked.json()) as { id: string };
    expect((await post(who, `/v1/sessions/${fork.id}/messages`, { input: "once more" })).status).toBe(202);
    expect((await waitForStatus(who, fork.id, ["done", "failed"])).status).toBe("done");
    const forkRoot = roots(await spansWhen(collector, (all) => roots(all).length >= 2)).find(
      (span) => span.attributes["gen_ai.conversation.id"] === fork.id,
    );
    expect(forkRoot?.name).toBe("invoke_agent support_triage");

    // A fork given input starts its run at once, traced as a created session's first run is: under the caller's traceparent.
    await model.script({ reply: { content: [text("and from the fork")] } });
    const started = await callJson(
      `/v1/sessions/${session.id}/fork`,
      "POST",
      { input: "from here" },
      { ...who.headers, traceparent: TRACEPARENT },
    );
    expect(started.status).toBe(201);
    const running = (await started.json()) as { id: string };
    expect((await waitForStatus(who, running.id, ["done", "failed"])).status).toBe("done");
    const isRunningFork = (span: DecodedSpan) => span.attributes["gen_ai.conversation.id"] === running.id;
    const runningRoot = roots(await spansWhen(collector, (all) => roots(all).some(isRunningFork), 10_000)).find(isRunningFork)!;
    expect(runningRoot.name).toBe("invoke_agent support_triage");
    expect(runningRoot.traceId).toBe(CALLER_TRACE);
    expect(runningRoot.parentSpanId).toBe(CALLER_SPAN);
  });

  it("export a sub-agent's run in its parent's trace, its root a child of the call's execute_tool span, every span once", async () => {
    const collector = mockHook(uniqueKey("otel"));
    await collector.script({ status: 200, body: {}, repeat: 50 });
    const who = await tracedAuthor(collector);
    const childModel = mockModel(uniqueKey("model"));
    await childModel.script({ reply: { content: [text("three sources found")] } });
    const researcher = await createAgent(who, { name: "researcher", model: childModel.key });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_research", "research", { input: "find sources" })] } },
      { reply: { content: [text("done researching")] } },
    );
    const res = await callJson(
      "/v1/sessions",
      "POST",
      { input: "research this", model: parentModel.key, tools: [agentTool("research", researcher.id)] },
      { ...who.headers, traceparent: TRACEPARENT },
    );
    expect(res.status).toBe(201);
    const parent = (await res.json()) as { id: string };
    const done = await waitForStatus(who, parent.id, ["done", "failed", "cancelled"], 20_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done" });
    const [child] = await childrenOf(who, parent.id);
    expect(child).toBeDefined();

    // Both runs' roots came: the parent's is written last of its spans, the child's last of its own.
    const spans = await spansWhen(collector, (all) => roots(all).length >= 2);
    // Each span once, all in the caller's one trace.
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([CALLER_TRACE]));
    expect(spans.map((span) => span.name).sort()).toEqual(
      [
        `chat ${childModel.key}`,
        `chat ${parentModel.key}`,
        `chat ${parentModel.key}`,
        "execute_tool research",
        "invoke_agent researcher",
        `invoke_agent ${parent.id}`,
      ].sort(),
    );

    const parentRoot = spans.find((span) => span.name === `invoke_agent ${parent.id}`)!;
    expect(parentRoot.parentSpanId).toBe(CALLER_SPAN);
    expect(parentRoot.attributes["gen_ai.conversation.id"]).toBe(parent.id);
    expect(parentRoot.attributes).not.toHaveProperty("gen_ai.agent.id");
    const call = spans.find((span) => span.name === "execute_tool research")!;
    expect(call.parentSpanId).toBe(parentRoot.spanId);
    expect(call.attributes).toMatchObject({ "gen_ai.tool.call.id": "call_research", "gen_ai.conversation.id": parent.id });

    const childRoot = spans.find((span) => span.name === "invoke_agent researcher")!;
    expect(childRoot.parentSpanId).toBe(call.spanId);
    expect(childRoot.attributes).toMatchObject({
      "gen_ai.conversation.id": child!.id,
      "gen_ai.agent.id": researcher.id,
      "gen_ai.agent.name": "researcher",
    });
    const childChat = spans.find((span) => span.name === `chat ${childModel.key}`)!;
    expect(childChat.parentSpanId).toBe(childRoot.spanId);
    expect(childChat.attributes["gen_ai.conversation.id"]).toBe(child!.id);
    // The child ran within its call.
    expect(BigInt(childRoot.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(call.startTimeUnixNano));
    expect(BigInt(childRoot.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(call.endTimeUnixNano));

    // The child's request to its model names its chat span, in the same trace.
    expect((await childModel.requests())[0]!.headers.traceparent).toBe(`00-${CALLER_TRACE}-${childChat.spanId}-01`);
  }, 40_000);

  it("keep a sub-agent's run in its parent's trace when the process dies during the child's model call", async () => {
    const collector = mockHook(uniqueKey("otel"));
    await collector.script({ status: 200, body: {}, repeat: 50 });
    const who = await tracedAuthor(collector);
    const childModel = mockModel(uniqueKey("model"));
    // The child's first call never answers; the one made after the restart does.
    await childModel.script({ hang: true }, { reply: { content: [text("found after the restart")] } });
    const helper = await createAgent(who, { name: "helper", model: childModel.key });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_help", "help", { input: "look it up" })] } },
      { reply: { content: [text("thanks")] } },
    );
    const parent = await createSession(who, { input: "ask the helper", model: parentModel.key, tools: [agentTool("help", helper.id)] });
    await childModel.waitForRequests(1);
    const [child] = await childrenOf(who, parent.id);

    await abortAllDurableObjects(); // the process dies while the child's model call is on its way
    await sessionOf(who, child!.id); // wakes the child, which calls its model again
    await eventually(
      () => sessionOf(who, parent.id),
      (s) => s.status === "done",
      20_000,
    );

    const spans = await spansWhen(collector, (all) => roots(all).length >= 2);
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const parentRoot = spans.find((span) => span.name === `invoke_agent ${parent.id}`)!;
    const call = spans.find((span) => span.name === "execute_tool help")!;
    const childRoot = spans.find((span) => span.name === "invoke_agent helper")!;
    expect(call.parentSpanId).toBe(parentRoot.spanId);
    expect(childRoot.parentSpanId).toBe(call.spanId);
    expect(childRoot.attributes["gen_ai.conversation.id"]).toBe(child!.id);
    // The call made after the restart names its span in the same trace.
    const childChats = spans.filter((span) => span.name === `chat ${childModel.key}`);
    expect(childChats.length).toBeGreaterThan(0);
    for (const chat of childChats) expect(chat.parentSpanId).toBe(childRoot.spanId);
    expect((await childModel.requests()).at(-1)!.headers.traceparent).toMatch(new RegExp(`^00-${parentRoot.traceId}-[0-9a-f]{16}-01$`));
  }, 40_000);
});
