/**
 * Crashes against both providers' mock servers (the Anthropic Messages API and an
 * OpenAI-compatible Chat Completions server), with a real `wrangler dev` killed with -9: during
 * an at-most-once webhook call, and during a summary call. Each answer is counted once in usage,
 * and a call the kill cut off not at all; the tenant's usage rollups say the same as the session.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { requestProblems, requestTurns } from "../support/request-checks";
import { historyProblems } from "./support/history";
import type { RecordedRequest } from "./support/mock-process";
import { callTools, INTERRUPTED_BY_RESTART, say, waitForFinal, waitForRequests, webhookTool } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";
import { waitFor } from "./support/wait";

const STEP_TIMEOUT_MS = 30_000;
const SUMMARY_MATCH = { system_includes: "running summary" };
const isSummary = (r: RecordedRequest) => JSON.stringify(r.body).includes("running summary");

let stack: Stack;

interface Rollup {
  data: { model: string; runs: number; steps: number; input_tokens: number; output_tokens: number }[];
}

/** The tenant's rollup by model, once it has heard of the session's end: one row, the session's own usage. */
async function expectRollup(
  tenantId: string,
  model: string,
  usage: { steps: number; input_tokens: number; output_tokens: number },
): Promise<void> {
  const admin = await stack.client(tenantId, "e2e-admin", ["tenant:admin"]);
  const report = await waitFor(
    async () => {
      const found = await admin.expect<Rollup>(200, "GET", "/v1/tenant/usage?group_by=model");
      return found.data[0]?.steps === usage.steps ? found : undefined;
    },
    { timeoutMs: STEP_TIMEOUT_MS, what: "the rollup of the session's usage" },
  );
  expect(report.data).toEqual([expect.objectContaining({ model, runs: 1, ...usage })]);
}

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.dispose();
});

describe.each([
  { name: "Anthropic", prefix: "" },
  { name: "OpenAI-compatible", prefix: "openai:" },
])("kill -9 on the $name provider", ({ prefix }) => {
  it("during an at-most-once webhook call: not called again, the model told, usage once per answer", async () => {
    const tenantId = uniqueName("tenant");
    const client = await stack.client(tenantId);
    const model = stack.mock.model(uniqueName("model"));
    const hook = stack.mock.hook(uniqueName("charge"));
    await model.script(callTools([["call_charge", "charge"]]), say("finished"));
    await hook.script({ hold: true, then: { status: 200, body: { output: "never seen" } } });
    const session = await client.createSession({
      input: "charge the card",
      model: `${prefix}${model.key}`,
      tools: [webhookTool("charge", hook.url, true)],
    });
    await waitForRequests(hook, 1, STEP_TIMEOUT_MS);
    await stack.platform.restart("SIGKILL");
    const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);

    expect(final.status, stack.logs()).toBe("done");
    expect(await hook.requests()).toHaveLength(1);
    const [call] = await client.toolCalls(session.id);
    expect(call).toMatchObject({ id: "call_charge", status: "error", output: INTERRUPTED_BY_RESTART });
    expect(historyProblems(await client.messages(session.id), await client.toolCalls(session.id))).toEqual([]);
    const requests = await model.requests();
    expect(JSON.stringify(requests[1]?.body)).toContain(INTERRUPTED_BY_RESTART);
    for (const request of requests) expect(requestProblems(requestTurns(request.path, request.body))).toEqual([]);
    expect(final.usage).toMatchObject({ steps: 2, input_tokens: 20, output_tokens: 10 });
    await expectRollup(tenantId, `${prefix || "anthropic:"}${model.key}`, { steps: 2, input_tokens: 20, output_tokens: 10 });
  });

  it("during a summary call: the summary is asked again with the same input, saved once, counted once", async () => {
    const tenantId = uniqueName("tenant");
    const client = await stack.client(tenantId);
    const model = stack.mock.model(uniqueName("model"));
    await model.script(
      ...Array.from({ length: 7 }, (_, i): ModelStep => ({
        reply: { content: [{ type: "tool_use", id: `call_c${i}`, name: "get_time", input: {} }] },
      })),
      say("done"),
      { match: SUMMARY_MATCH, hang: true },
      { match: SUMMARY_MATCH, repeat: 20, reply: { content: [{ type: "text", text: "the clock was checked several times" }] } },
    );
    const session = await client.createSession({
      input: "check the clock",
      model: `${prefix}${model.key}`,
      tools: [{ type: "builtin", name: "get_time" }],
      context: { strategy: "summary", max_input_tokens: 400 },
    });
    await waitFor(async () => ((await model.requests()).some(isSummary) ? true : undefined), {
      timeoutMs: STEP_TIMEOUT_MS,
      what: "a summary call",
    });
    await stack.platform.restart("SIGKILL");
    const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);

    expect(final.status, stack.logs()).toBe("done");
    const all = await model.requests();
    const summaries = all.filter(isSummary);
    expect(summaries[0]!.answered_at, "the summary call was cut off").toBeUndefined();
    expect(summaries[1]!.body).toEqual(summaries[0]!.body);
    expect(historyProblems(await client.messages(session.id), await client.toolCalls(session.id))).toEqual([]);
    for (const request of all.filter((r) => !isSummary(r))) expect(requestProblems(requestTurns(request.path, request.body))).toEqual([]);
    const answered = all.filter((r) => r.answered_at !== undefined).length;
    expect(final.usage).toMatchObject({ steps: 8, input_tokens: 10 * answered, output_tokens: 5 * answered });
    await expectRollup(tenantId, `${prefix || "anthropic:"}${model.key}`, {
      steps: 8,
      input_tokens: 10 * answered,
      output_tokens: 5 * answered,
    });
  });
});
