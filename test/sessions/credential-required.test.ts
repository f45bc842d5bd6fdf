/** `credential_required` is said once per run for each credential and failure, however many calls fail on it. */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/session-config/types";
import { mockHook, uniqueKey } from "../support/mock-client";
import { createAndStart, newTestSession, toolCalls, waitForStatus } from "../support/agent-session";
import { storedEvents } from "../support/event-rows";

const toolUse = (id: string) => ({ type: "tool_use", id, name: "crm", input: {} });

describe("credential_required", () => {
  it("is emitted once for a credential that several calls of a run could not use", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("crm"));
    const tool: ToolSpec = {
      type: "webhook",
      name: "crm",
      description: "the crm tool",
      input_schema: { type: "object" },
      url: hook.url,
      auth: { credential: "crm" },
    };
    await t.model.script(
      { reply: { content: [toolUse("toolu_1"), toolUse("toolu_2")] } },
      { reply: { content: [toolUse("toolu_3")] } },
      { reply: { content: [{ type: "text", text: "please connect crm" }] } },
    );
    await createAndStart(t, "look it up", { tools: [tool] });
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    const calls = await toolCalls(t);
    expect(calls.map((c) => c.is_error)).toEqual([true, true, true]);
    for (const call of calls) expect(call.output).toMatch(/^credential_missing/);
    expect(await hook.requests()).toEqual([]);
    const events = await runInDurableObject(t.stub, (_instance, state) => storedEvents(state.storage.sql));
    const required = events.filter((e) => e.type === "credential_required");
    expect(required).toHaveLength(1);
    expect(JSON.parse(required[0]!.data)).toMatchObject({ credential: "crm", code: "credential_missing" });
  });
});
