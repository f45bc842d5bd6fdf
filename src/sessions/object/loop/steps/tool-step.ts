/**
 * The tool calls of one model response: the other unit of work. Calls run in order, each
 * marked `running` before its side effect and saved as it finishes, so a crash in the middle
 * reruns none that finished. The mark is made durable first only where a repeat would be wrong
 * (an at-most-once tool); an idempotent call cut off by a crash simply runs again.
 */
import { UNIT_BUDGET_MS } from "../../../../limits";
import { tenantIndexStub } from "../../../../objects";
import type { AgentHost, UnitScope } from "../../engine/engine";
import { cutOutput } from "../../tools/cut-output";
import { McpConnections } from "../../tools/mcp/pool";
import type { ToolContext, ToolOutcome } from "../../tools/tool";
import { validateToolInput } from "../../tools/validate-input";
import type { UnitOutcome } from "../next-unit";
import type { ToolCall } from "../../../types";

export const INTERRUPTED_BY_RESTART = "interrupted by a restart, not run again";
/**
 * A call that may be repeated is run again after a restart cut it off, but not forever: a call
 * that keeps being cut off may be what brings the object down (code past the CPU limit), and
 * would stop the run for good.
 */
export const MAX_CALL_RESTARTS = 3;
export const interruptedTooOften = (restarts: number) => `interrupted by ${restarts} restarts, not run again`;

export async function runToolStep(scope: UnitScope): Promise<UnitOutcome> {
  const host = scope.host;
  const session = host.requireSession();
  const signing = () => tenantIndexStub(host.env, session.tenant_id).getWebhookSigning(session.tenant_id);
  // The unit's MCP connections: opened on first use, closed when the unit ends, never kept.
  const mcp = new McpConnections({ allowPrivateUrls: host.config.allowPrivateUrls, allowedOrigins: async () => (await signing()).webhook_origins });
  try {
    return await runCalls(scope, mcp, signing);
  } finally {
    await mcp.closeAll();
  }
}

async function runCalls(scope: UnitScope, mcp: McpConnections, signing: ToolContext["webhookSigning"]): Promise<UnitOutcome> {
  const host = scope.host;
  const session = host.requireSession();
  const started = Date.now();
  for (const call of host.store.openToolCalls()) {
    if (!scope.current) return "discarded";
    if (call.status !== "pending" && call.status !== "running") continue;
    // The handler would be cut off soon: the rest runs in the next alarm.
    if (Date.now() - started > UNIT_BUDGET_MS) return "partial";
    const tool = host.toolbox().get(call.name);
    if (call.status === "running") {
      // Found running on a fresh unit: the last try was cut off by a restart mid-call.
      if (!tool || tool.atMostOnce) {
        finish(host, call, { output: INTERRUPTED_BY_RESTART, isError: true });
        continue;
      }
      const restarts = host.store.countRestart(call.id);
      if (restarts > MAX_CALL_RESTARTS) {
        finish(host, call, { output: interruptedTooOften(restarts), isError: true });
        continue;
      }
      // The count must survive the next crash, or a call that causes it would never stop.
      await host.ctx.storage.sync();
      if (!scope.current) return "discarded";
    }
    const problem = !tool ? `unknown tool "${call.name}"` : tool.run ? validateToolInput(tool.definition.input_schema, call.input) : null;
    if (problem || !tool) {
      finish(host, call, { output: problem ?? `tool "${call.name}" cannot run`, isError: true });
      continue;
    }
    if (!tool.run) {
      // A client tool approved just now: it waits for the caller's output.
      host.store.setToolCallStatus(call.id, "waiting_tool_output", host.nowIso());
      continue;
    }

    const controller = host.inflight.begin();
    const ctx: ToolContext = {
      sessionId: session.id,
      tenantId: session.tenant_id,
      createdBy: session.created_by,
      toolCallId: call.id,
      idempotencyKey: `${session.id}:${call.id}`,
      signal: controller.signal,
      allowPrivateUrls: host.config.allowPrivateUrls,
      maxOutputChars: session.limits.max_tool_output_chars,
      webhookSigning: signing,
      mcp,
    };
    let outcome: ToolOutcome;
    try {
      await tool.prepare?.(ctx);
      if (!scope.current) return "discarded";
      host.store.setToolCallStatus(call.id, "running", host.nowIso());
      if (tool.atMostOnce) {
        // The mark must be durable before a side effect that must not happen twice.
        await host.ctx.storage.sync();
        if (!scope.current) return "discarded";
      }
      outcome = await tool.run(call.input, ctx);
    } catch (err) {
      outcome = { output: `tool "${call.name}" failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    } finally {
      host.inflight.end(controller);
    }
    // Cancelled meanwhile: the result is stale.
    if (!scope.commit(() => finish(host, call, outcome))) return "discarded";
  }
  const ended = scope.commit(() => {
    // A unit that ran to its end clears the count of earlier faults.
    if (host.store.run().attempts > 0) host.updateRun({ attempts: 0, next_attempt_at: 0 });
    host.continueRun();
  });
  return ended ? "ok" : "discarded";
}

function finish(host: AgentHost, call: ToolCall, outcome: ToolOutcome): void {
  const output = cutOutput(outcome.output, host.requireSession().limits.max_tool_output_chars);
  host.store.finishToolCall(call.id, output, outcome.isError, host.nowIso());
  host.emit("tool_result", host.store.toolCall(call.id));
}
