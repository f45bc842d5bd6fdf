/**
 * The process dies between the parent's note of a child and the child's start. The tool unit
 * makes the note durable before it asks for the child, so the next tool unit, run by a new
 * instance from storage, finds the note with no child: it starts that child (its id derived from
 * the call) once, counts it once against the run's limit (a limit of one still lets it start),
 * and the call gets its result once.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../../src/objects";
import { childSessionId } from "../../../src/session-config/ids";
import { SessionStore } from "../../../src/sessions/object/store/store";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { createSession, messagesOf, post, text, toolCallsOf, toolUse, waitForStatus } from "../sessions/helpers";
import { agentOn, agentTool, author, childrenOf, PROVIDERS, setLimits } from "./helpers";

describe("a restart between the note of a child and its start", () => {
  it("starts the noted child once and gives its result once", async () => {
    const who = await author();
    // The noted child is the one the run may start: counting it again would refuse it.
    await setLimits(who.tenantId, { max_subagents_per_run: 1 });
    const helper = await agentOn(who, PROVIDERS[0]);
    await helper.model.script({ reply: { content: [text("the child's answer")] } });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_help", "helper", { input: "look it up" }), toolUse("call_time", "get_time")] } },
      { reply: { content: [text("the parent is done")] } },
    );
    // Both calls wait for a person, so no tool unit has run yet.
    const parent = await createSession(who, {
      input: "ask the helper",
      model: parentModel.key,
      tools: [agentTool("helper", helper.id, { requires_approval: true }), { type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(who, parent.id, ["waiting_approval"], 10_000);

    // What a death leaves of the agent call when its tool unit died after the note of the child was
    // durable, before the child was asked for: the call approved, then in one commit the note (under
    // the id derived from the call) and the call marked running; no child. The run is left waiting
    // for the other call, so the unit runs again when that one is decided, not from the alarm a
    // death leaves a running session: either way it goes through the agent call the same way.
    const childId = await childSessionId(parent.id, "call_help");
    const stub = () => sessionStub(env, who.tenantId, parent.id);
    const runStart = await runInDurableObject(stub(), (_instance, state) => {
      const store = new SessionStore(state.storage);
      const seq = store.run().run_start_seq;
      store.transaction(() => {
        const now = new Date().toISOString();
        store.recordDecision("call_help", who.subject, "approved", now);
        store.insertSubagent("call_help", childId, seq, now);
        store.setToolCallStatus("call_help", "running", now);
      });
      return seq;
    });
    await abortAllDurableObjects(); // the process dies: the parent wakes from storage
    expect(await childrenOf(who, parent.id)).toEqual([]);

    // Approving the other call runs the tool unit again, in the new instance: it finds the agent call noted.
    expect((await post(who, `/v1/sessions/${parent.id}/tool-calls/call_time/approve`)).status).toBe(200);
    const done = await waitForStatus(who, parent.id, ["done", "failed", "cancelled"], 15_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done", stop_reason: "end_turn" });

    expect((await childrenOf(who, parent.id)).map((child) => [child.id, child.status])).toEqual([[childId, "done"]]);
    const calls = await toolCallsOf(who, parent.id);
    expect(calls.map((c) => [c.id, c.status, c.is_error])).toEqual([
      ["call_help", "done", false],
      ["call_time", "done", false],
    ]);
    expect(calls[0]!.output).toBe("the child's answer");
    const results = (await messagesOf(who, parent.id)).flatMap((m) => m.content).filter((b) => b.type === "tool_result");
    expect(results.map((b) => (b as { tool_use_id: string }).tool_use_id)).toEqual(["call_help", "call_time"]);
    expect(results[0]).toEqual({ type: "tool_result", tool_use_id: "call_help", content: "the child's answer" });
    expect(await helper.model.requests()).toHaveLength(1);
    expect(await parentModel.requests()).toHaveLength(2);
    // One note, counted once against the run's limit on sub-agents.
    expect(await runInDurableObject(stub(), (_instance, state) => new SessionStore(state.storage).subagentsInRun(runStart))).toBe(1);
  }, 30_000);
});
