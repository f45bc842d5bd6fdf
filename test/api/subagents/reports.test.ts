/**
 * How a parent hears of its children: a child's report applied once per revision and its result
 * given once, and a report that never arrived made good by the parent's own look at its children
 * from its alarm.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../../src/objects";
import type { SessionRpc } from "../../../src/sessions/object/rpc";
import type { ChildReport } from "../../../src/sessions/object/subagents/report";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { createSession, post, text, toolCallsOf, toolUse, waitForStatus } from "../sessions/helpers";
import { agentOn, agentTool, author, childrenOf, eventually, PROVIDERS, session } from "./helpers";

const APPROVED_TIME = { type: "builtin", name: "get_time", requires_approval: true };

/** A parent whose one agent call's child waits for the approval of a get_time call. */
async function parentWithWaitingChild() {
  const who = await author();
  const clerk = await agentOn(who, PROVIDERS[0], { tools: [APPROVED_TIME] });
  await clerk.model.script({ reply: { content: [toolUse("call_time", "get_time")] } }, { reply: { content: [text("half past")] } });
  const parentModel = mockModel(uniqueKey("model"));
  await parentModel.script(
    { reply: { content: [toolUse("call_clerk", "clerk", { input: "time?" })] } },
    { reply: { content: [text("half past, says the clerk")] } },
  );
  const parent = await createSession(who, { input: "go", model: parentModel.key, tools: [agentTool("clerk", clerk.id)] });
  const [child] = await eventually(
    () => childrenOf(who, parent.id),
    (rows) => rows.length === 1,
  );
  await waitForStatus(who, child!.id, ["waiting_approval"], 10_000);
  await waitForStatus(who, parent.id, ["waiting_subagents"], 10_000);
  return { who, parent, childId: child!.id, parentModel };
}

describe("a parent hearing of its children", () => {
  it("applies a repeated report once and gives the call one result, whichever report carries it", async () => {
    const { who, parent, childId, parentModel } = await parentWithWaitingChild();
    const stub: SessionRpc = sessionStub(env, who.tenantId, parent.id);
    const usage = { steps: 1, input_tokens: 5, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 };
    const report: ChildReport = {
      tool_call_id: "call_clerk",
      session_id: childId,
      status: "done",
      stop_reason: "end_turn",
      revision: 1_000,
      usage,
      result: { output: "first word", is_error: false },
    };
    // Not this session's child: nothing is applied.
    expect(await stub.childReport({ ...report, session_id: "ses_someone_else_entirely_00000" })).toEqual({ ok: true, value: null });
    expect((await toolCallsOf(who, parent.id))[0]!.status).toBe("running");
    const answers = await Promise.all([
      stub.childReport(report),
      stub.childReport(report),
      stub.childReport({ ...report, revision: 1_001, result: { output: "second word", is_error: false } }),
    ]);
    expect(answers.every((answer) => answer.ok)).toBe(true);
    const done = await waitForStatus(who, parent.id, ["done", "failed"], 10_000);
    expect(done.usage.subagents).toEqual(usage);
    const calls = await toolCallsOf(who, parent.id);
    expect(calls.map((c) => [c.id, c.status, c.output])).toEqual([["call_clerk", "done", "first word"]]);
    // The model saw one tool_result for its one call.
    const [, second] = await parentModel.requests();
    expect(JSON.stringify(second!.body).match(/first word/g)).toHaveLength(1);
    expect(JSON.stringify(second!.body)).not.toContain("second word");
    expect(await stub.childReport({ ...report, revision: 2_000 })).toEqual({ ok: true, value: null });
    expect((await toolCallsOf(who, parent.id)).map((c) => c.output)).toEqual(["first word"]);
  }, 30_000);

  it("finds a child's end from its own alarm when the child's report never came", async () => {
    const { who, parent, childId } = await parentWithWaitingChild();
    // The child believes the parent heard everything it will ever say: no report will be sent.
    await runInDurableObject(sessionStub(env, who.tenantId, childId), async (_instance, state) =>
      state.storage.kv.put("parent_told_revision", Number.MAX_SAFE_INTEGER),
    );
    expect((await post(who, `/v1/sessions/${childId}/tool-calls/call_time/approve`)).status).toBe(200);
    await waitForStatus(who, childId, ["done"], 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await session(who, parent.id)).status).toBe("waiting_subagents");
    // The parent's alarm is set for its next look at the child; run it now rather than in 30 s.
    const parentStub = sessionStub(env, who.tenantId, parent.id);
    expect(await runDurableObjectAlarm(parentStub)).toBe(true);
    const done = await waitForStatus(who, parent.id, ["done", "failed"], 10_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done" });
    expect((await toolCallsOf(who, parent.id))[0]).toMatchObject({ status: "done", output: "half past" });
  }, 30_000);
});
