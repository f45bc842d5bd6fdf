/**
 * The tool calls of one model response: the other unit of work. Calls run in order, each
 * marked `running` durably before its side effect and saved as it finishes, so a crash in
 * the middle reruns none that finished, and an at-most-once call is never run twice.
 */
import { UNIT_BUDGET_MS } from "../limits";
import type { AgentHost } from "./host";
import { tenantIndexStub } from "../objects";
import { cutOutput } from "./tools/cut-output";
import type { ToolOutcome } from "./tools/tool";
import { validateToolInput } from "./tools/validate-input";
import type { ToolCall } from "./types";

export const INTERRUPTED_BY_RESTART = "interrupted by a restart, not run again";

export async function runToolStep(host: AgentHost, generation: number): Promise<void> {
  const session = host.requireSession();
  const started = Date.now();
  for (const call of host.store.openToolCalls()) {
    if (!host.isCurrent(generation)) return;
    if (call.status !== "pending" && call.status !== "running") continue;
    if (Date.now() - started > UNIT_BUDGET_MS) {
      // The handler would be cut off soon: the rest runs in the next alarm.
      await host.scheduleAt(Date.now());
      return;
    }
    const tool = host.toolbox().get(call.name);
    if (call.status === "running" && (!tool || tool.atMostOnce)) {
      // Found running on a fresh unit: the last try was cut off by a restart mid-call.
      finish(host, call, { output: INTERRUPTED_BY_RESTART, isError: true });
      continue;
    }
    const problem = !tool
      ? `unknown tool "${call.name}"`
      : tool.run
        ? validateToolInput(tool.definition.input_schema, call.input)
        : null;
    if (problem || !tool) {
      finish(host, call, { output: problem ?? `tool "${call.name}" cannot run`, isError: true });
      continue;
    }
    if (!tool.run) {
      // A client tool approved just now: it waits for the caller's output.
      host.store.setToolCallStatus(call.id, "waiting_tool_output", host.nowIso());
      continue;
    }
    host.store.setToolCallStatus(call.id, "running", host.nowIso());
    // The mark must be durable before the side effect, or a crash could repeat it.
    await host.ctx.storage.sync();
    if (!host.isCurrent(generation)) return;

    const controller = host.beginCall();
    let outcome: ToolOutcome;
    try {
      outcome = await tool.run(call.input, {
        sessionId: session.id,
        tenantId: session.tenant_id,
        createdBy: session.created_by,
        toolCallId: call.id,
        idempotencyKey: `${session.id}:${call.id}`,
        signal: controller.signal,
        allowPrivateUrls: host.config.allowPrivateUrls,
        maxOutputChars: session.limits.max_tool_output_chars,
        webhookSigning: () => tenantIndexStub(host.env, session.tenant_id).getWebhookSigning(session.tenant_id),
      });
    } catch (err) {
      outcome = { output: `tool "${call.name}" failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    } finally {
      host.endCall(controller);
    }
    if (!host.isCurrent(generation)) return; // cancelled meanwhile: the result is stale
    finish(host, call, outcome);
  }
  // A unit that ran to its end clears the count of earlier faults.
  if (host.store.run().attempts > 0) host.updateRun({ attempts: 0, next_attempt_at: 0 });
  await host.continueRun();
  await host.report();
}

function finish(host: AgentHost, call: ToolCall, outcome: ToolOutcome): void {
  const output = cutOutput(outcome.output, host.requireSession().limits.max_tool_output_chars);
  host.store.finishToolCall(call.id, output, outcome.isError, host.nowIso());
  host.emit("tool_result", host.store.toolCall(call.id));
}
