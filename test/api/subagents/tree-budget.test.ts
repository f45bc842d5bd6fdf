/**
 * A sub-agent tree's budget, kept by its root: the fan-out shape that grew 1,111 sessions from
 * one request (a self-recursive agent calling itself several times a run, at the default depth),
 * at a small scale, stops at `max_sessions_per_tree` and `max_model_calls_per_tree`, the calls
 * and runs past them told which limit; the root shows the count, and keeps it across a restart.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS } from "../../../src/limits";
import { sessionStub } from "../../../src/objects";
import type { Session, ToolCall } from "../../../src/session-config/types";
import { callJson } from "../../support/api";
import type { Caller } from "../sessions/helpers";
import { createSession, getJson, post, text, toolCallsOf, toolUse, waitForStatus } from "../sessions/helpers";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { agentOn, author, eventually, PROVIDERS, session, setLimits } from "./helpers";

/** An agent whose one tool is an `agent` tool naming itself; each of its answers calls it `fanOut` times, `fanOuts` answers in all, then it ends. */
async function selfRecursive(who: Caller, fanOut: number, fanOuts: number) {
  const agent = await agentOn(who, PROVIDERS[0]);
  const patched = await callJson(
    `/v1/agents/${agent.id}`,
    "PATCH",
    { tools: [{ type: "agent", name: "self", description: "Asks itself.", agent: agent.id }] },
    who.headers,
  );
  expect(patched.status).toBe(200);
  // Each answer's calls have ids of their own: a session that fans out again never reuses one.
  const answers = Array.from({ length: fanOuts }, (_, k) => ({
    reply: { content: Array.from({ length: fanOut }, (_, i) => toolUse(`toolu_${k}_${i}`, "self", { input: `part ${i}` })) },
  }));
  await agent.model.script(...answers, { reply: { content: [text("done")] }, repeat: 1_000 });
  return agent;
}

async function tenantSessions(who: Caller): Promise<{ id: string; status: string }[]> {
  return (await getJson<{ data: { id: string; status: string }[] }>(who, "/v1/sessions?limit=100")).data;
}

async function allSettled(who: Caller): Promise<{ id: string; status: string }[]> {
  return eventually(
    () => tenantSessions(who),
    (rows) => rows.every((row) => ["done", "failed", "cancelled"].includes(row.status)),
    60_000,
  );
}

describe("a sub-agent tree's budget", () => {
  it("stops a self-recursive fan-out at max_sessions_per_tree, each call past it answered with the limit's name", async () => {
    const who = await author();
    await setLimits(who.tenantId, { max_sessions_per_tree: 7 });
    // Three calls an answer at depth 3 would make 40 sessions; twenty answers fan out.
    const agent = await selfRecursive(who, 3, 20);
    const root = await createSession(who, { agent: agent.id, input: "go" });
    await waitForStatus(who, root.id, ["done", "failed", "cancelled"], 60_000);
    const sessions = await allSettled(who);
    expect(sessions).toHaveLength(7);
    const calls: ToolCall[] = (await Promise.all(sessions.map((s) => toolCallsOf(who, s.id)))).flat();
    const refused = calls.filter((c) => c.is_error && /max_sessions_per_tree/.test(c.output ?? ""));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.output).toMatch(/at most 7 sessions/);
    const shown = await session(who, root.id);
    expect(shown.tree).toEqual({ sessions: 7, model_calls: (await agent.model.requests()).length });
    // Children show none: their root keeps the count.
    const child = sessions.find((s) => s.id !== root.id)!;
    expect((await session(who, child.id)).tree).toBeNull();
  }, 90_000);

  it("stops the whole tree's model calls at max_model_calls_per_tree, the run past it ending budget_limit with the limit named", async () => {
    const who = await author();
    await setLimits(who.tenantId, { max_model_calls_per_tree: 5 });
    const agent = await selfRecursive(who, 2, 100);
    const root = await createSession(who, { agent: agent.id, input: "go" });
    const ended = await waitForStatus(who, root.id, ["done", "failed", "cancelled"], 60_000);
    await allSettled(who);
    expect(await agent.model.requests()).toHaveLength(5);
    // The root needs a call after its children's results: the tree has none left.
    expect(ended).toMatchObject({ status: "done", stop_reason: "budget_limit", tree: { model_calls: 5 } });
    expect(ended.error).toMatch(/5 model calls \(max_model_calls_per_tree\)/);
    // A child stopped by the limit tells its parent's call why.
    const calls = await toolCallsOf(who, root.id);
    expect(calls.some((c) => c.is_error && /max_model_calls_per_tree/.test(c.output ?? ""))).toBe(true);
  }, 90_000);

  it("is decided by the root alone: concurrent asks take no more places than the limit, a child asked twice counts once, across a restart", async () => {
    const who = await author();
    await setLimits(who.tenantId, { max_sessions_per_tree: 5 });
    const root = await createSession(who, {});
    const stub = () => sessionStub(env, who.tenantId, root.id);
    const asks = Array.from({ length: 12 }, (_, i) => stub().treeTake({ kind: "session", session_id: `ses_child_${i % 6}` }));
    const answers = await Promise.all(asks);
    const taken = new Set(answers.flatMap((a, i) => (a.ok && a.value.ok ? [`ses_child_${i % 6}`] : [])));
    expect(taken.size).toBe(4);
    expect(answers.filter((a) => a.ok && !a.value.ok)[0]).toEqual({
      ok: true,
      value: { ok: false, limit: "max_sessions_per_tree", max: 5 },
    });
    await abortAllDurableObjects();
    const again = await stub().treeTake({ kind: "session", session_id: [...taken][0]! });
    expect(again).toEqual({ ok: true, value: { ok: true } });
    expect((await stub().treeTake({ kind: "session", session_id: "ses_new" })).ok && true).toBe(true);
    expect(((await session(who, root.id)) as Session).tree).toEqual({ sessions: 5, model_calls: 0 });
  });

  it("counts the tree of a root stored before tree budgets (no count kept, no tree limits in its settings) from its next ask, at the defaults", async () => {
    const who = await author();
    const root = await createSession(who, {});
    const stub = () => sessionStub(env, who.tenantId, root.id);
    // The storage the version before left: the session's limits without the two, and no `tree` key.
    await runInDurableObject(stub(), async (_instance, state) => {
      const stored = state.storage.kv.get<{ limits: Record<string, unknown> }>("session")!;
      const { max_sessions_per_tree: _s, max_model_calls_per_tree: _m, ...older } = stored.limits;
      state.storage.kv.put("session", { ...stored, limits: older });
      state.storage.kv.delete("tree");
    });
    await abortAllDurableObjects();
    expect((await session(who, root.id)).tree).toEqual({ sessions: 1, model_calls: 0 });
    const max = BUILTIN_DEFAULT_LIMITS.max_sessions_per_tree;
    for (let i = 1; i < max; i++)
      expect(await stub().treeTake({ kind: "session", session_id: `ses_${i}` })).toEqual({ ok: true, value: { ok: true } });
    expect(await stub().treeTake({ kind: "session", session_id: "ses_over" })).toEqual({
      ok: true,
      value: { ok: false, limit: "max_sessions_per_tree", max },
    });
    expect((await session(who, root.id)).tree).toEqual({ sessions: max, model_calls: 0 });
  });

  it("starts a new tree with each run of its root, so a long conversation is never stopped by its earlier runs' trees", async () => {
    const who = await author();
    await setLimits(who.tenantId, { max_sessions_per_tree: 2 });
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("first")] } }, { reply: { content: [text("second")] } });
    const root = await createSession(who, { input: "one", model: model.key });
    await waitForStatus(who, root.id, ["done"]);
    const stub = () => sessionStub(env, who.tenantId, root.id);
    expect(await stub().treeTake({ kind: "session", session_id: "ses_a" })).toEqual({ ok: true, value: { ok: true } });
    expect(await stub().treeTake({ kind: "session", session_id: "ses_b" })).toMatchObject({ value: { ok: false } });
    expect((await post(who, `/v1/sessions/${root.id}/messages`, { input: "two" })).status).toBe(202);
    await waitForStatus(who, root.id, ["done"]);
    expect((await session(who, root.id)).tree).toEqual({ sessions: 1, model_calls: 1 });
    expect(await stub().treeTake({ kind: "session", session_id: "ses_b" })).toEqual({ ok: true, value: { ok: true } });
  });
});
