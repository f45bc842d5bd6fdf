/**
 * The tool calls of one model response: the other unit of work. Calls run in order, each
 * marked `running` before its side effect (an instant tool, which has none, is not) and saved
 * as it finishes, so a crash in the middle reruns none that finished. The mark is made durable first only where a repeat would be wrong
 * (an at-most-once tool); an idempotent call cut off by a crash simply runs again.
 */
import { BUILTIN_DEFAULT_LIMITS, UNIT_BUDGET_MS } from "../../../../limits";
import type { MemoryStoreRpc } from "../../../../memory/rpc";
import { memoryStoreStub, tenantIndexStub } from "../../../../objects";
import { StaleUnit, type StepScope, type UnitWriter } from "../../engine/unit-scope";
import { McpConnections } from "../../tools/mcp/pool";
import { UnitCredentials } from "../../tools/unit-credentials";
import type { Tool, ToolContext, ToolOutcome } from "../../tools/tool";
import { validateToolInput } from "../../tools/validate-input";
import { runAgentCall } from "./agent-call";
import { markRunning } from "./mark-running";
import { markAtMostOnce } from "../../tools/at-most-once";
import { cutOutput } from "../../tools/cut-output";
import type { UnitOutcome } from "../next-unit";
import type { ToolCall } from "../../../../session-config/types";
import { deniedOutput } from "../tool-policy";

export const INTERRUPTED_BY_RESTART = "interrupted by a restart, not run again";
/**
 * A call that may be repeated is run again after a restart cut it off, but not forever: a call
 * that keeps being cut off may be what brings the object down (code past the CPU limit), and
 * would stop the run for good.
 */
export const MAX_CALL_RESTARTS = 3;
export const interruptedTooOften = (restarts: number) => `interrupted by ${restarts} restarts, not run again`;

export async function runToolStep(scope: StepScope): Promise<UnitOutcome> {
  const session = scope.requireSession();
  const signing = () => tenantIndexStub(scope.env, session.tenant_id).getCallSigning(session.tenant_id);
  // The unit's MCP connections: opened on first use, closed when the unit ends, never kept.
  // Calls run one at a time: a request made now belongs to the call going on.
  const tracing = { current: undefined as string | undefined };
  const credentials = UnitCredentials.forSession(scope.env, session);
  const mcp = new McpConnections({
    allowPrivateUrls: scope.config.allowPrivateUrls,
    allowedOrigins: async () => (await signing()).webhook_origins,
    traceparent: () => tracing.current,
    credentials,
  });
  try {
    return await runCalls(scope, mcp, signing, tracing, credentials);
  } finally {
    await mcp.closeAll();
  }
}

async function runCalls(
  scope: StepScope,
  mcp: McpConnections,
  signing: ToolContext["callSigning"],
  tracing: { current: string | undefined },
  credentials: UnitCredentials,
): Promise<UnitOutcome> {
  const session = scope.requireSession();
  const started = Date.now();
  // Every write goes through `commit`: one that finds the unit stale throws, and the unit is "discarded".
  const calls = scope.store.openToolCalls().filter((call) => call.status === "pending" || call.status === "running");
  for (const [index, call] of calls.entries()) {
    // The handler would be cut off soon: the rest runs in the next alarm.
    if (Date.now() - started > UNIT_BUDGET_MS) return "partial";
    const tool = scope.toolbox().get(call.name);
    // Judged when the call was saved (model-step.ts): a denied call ends with its error, unrun.
    if (call.policy?.decision === "deny") {
      const policy = call.policy;
      scope.commit((w) => finish(w, call, { output: deniedOutput(policy), isError: true }));
      continue;
    }
    if (tool?.kind === "agent") {
      await runAgentCall(scope, call, (w, c, output, isError) => finish(w, c, { output, isError }));
      continue;
    }
    const rule = markAtMostOnce(tool?.atMostOnce, tool?.instant);
    if (call.status === "running") {
      // Found running on a fresh unit: the last try was cut off by a restart mid-call. An `a2a`
      // call whose remote task was kept after its send asks after that task: nothing is sent again.
      if (!rule.repeatAfterCut && !(tool?.kind === "a2a" && scope.store.remoteTask(call.id)?.polling)) {
        scope.commit((w) => finish(w, call, { output: INTERRUPTED_BY_RESTART, isError: true }));
        continue;
      }
      const restarts = scope.commit((w) => w.store.countRestart(call.id));
      if (restarts > MAX_CALL_RESTARTS) {
        scope.commit((w) => finish(w, call, { output: interruptedTooOften(restarts), isError: true }));
        continue;
      }
      // The count must survive the next crash, or a call that causes it would never stop.
      await scope.persist();
    }
    const problem = !tool ? `unknown tool "${call.name}"` : tool.run ? validateToolInput(tool.definition.input_schema, call.input) : null;
    if (problem || !tool) {
      scope.commit((w) => finish(w, call, { output: problem ?? `tool "${call.name}" cannot run`, isError: true }));
      continue;
    }
    if (!tool.run) {
      // A client tool approved just now: it waits for the caller's output.
      scope.commit((w) => w.store.setToolCallStatus(call.id, "waiting_tool_output", w.nowIso()));
      continue;
    }

    const controller = scope.inflight.begin();
    tracing.current = scope.traceparentFor(call.id);
    const ctx: ToolContext = {
      ...(tracing.current ? { traceparent: tracing.current } : {}),
      sessionId: session.id,
      tenantId: session.tenant_id,
      createdBy: session.created_by,
      toolCallId: call.id,
      idempotencyKey: `${session.id}:${call.id}`,
      signal: controller.signal,
      allowPrivateUrls: scope.config.allowPrivateUrls,
      maxOutputChars: session.limits.max_tool_output_chars,
      codeLoader: scope.config.runCodeIsolate === "dynamic_worker" ? scope.env.LOADER : null,
      callSigning: signing,
      mcp,
      credentials,
      ...remoteTaskOf(scope, tool.kind, call.id),
      keepRemoteTask: async (task) => {
        scope.commit((w) => w.store.putRemoteTask(call.id, task));
        await scope.persist();
      },
      memory: () => ({
        store: memoryStoreStub(scope.env, session.tenant_id) as unknown as MemoryStoreRpc,
        // Sessions created before memory existed kept no such limit.
        maxItems: session.limits.max_memory_items ?? BUILTIN_DEFAULT_LIMITS.max_memory_items,
        maxBytes: session.limits.max_memory_bytes ?? BUILTIN_DEFAULT_LIMITS.max_memory_bytes,
      }),
    };
    let outcome: ToolOutcome;
    // An instant tool is not marked running first: its start is written with its result. A tool
    // that must run at most once always is, durably: the mark is what a restart finds.
    // When the call started: its span starts there (the call in hand was read before its mark).
    let startedAt = rule.markFirst ? null : scope.nowIso();
    try {
      await tool.prepare?.(ctx);
      if (rule.markFirst) startedAt = await markRunning(scope, call.id, rule.durableMark);
      outcome = await tool.run(call.input, ctx);
    } catch (err) {
      // A stale mark is the unit's end, not the tool's failure.
      if (err instanceof StaleUnit) throw err;
      outcome = { output: `tool "${call.name}" failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    } finally {
      scope.inflight.end(controller);
    }
    // A credential's value never reaches the call's result, whoever echoed it.
    outcome = { ...outcome, output: credentials.masker().mask(outcome.output) };
    const required = outcome.credentialFailure ? credentials.required(outcome.credentialFailure) : null;
    // The last call's result and the unit's end are one commit (one row of events, one run-state write).
    const last = index === calls.length - 1;
    // Cancelled meanwhile: the result is stale.
    scope.commit((w) => {
      if (tool.kind === "a2a") keepRemoteTask(w, call, outcome);
      if (outcome.waiting) waitForOutput(w, call, cutOutput(outcome.output, session.limits.max_tool_output_chars));
      else finish(w, call, outcome, startedAt);
      if (required) w.requireCredential(required);
      if (last) endUnit(w);
    });
    if (last) return "ok";
  }
  scope.commit(endUnit);
  return "ok";
}

/** A unit that ran to its end: the count of earlier faults cleared, and the run moved on. */
function endUnit(w: UnitWriter): void {
  if (w.store.run().attempts > 0) w.updateRun({ attempts: 0, next_attempt_at: 0 });
  w.continueRun();
}

/** An `a2a` call answered after its remote task asked for input runs with that task and the answer. */
function remoteTaskOf(scope: StepScope, kind: Tool["kind"], callId: string): Pick<ToolContext, "remoteTask"> {
  const remote = kind === "a2a" ? scope.store.remoteTask(callId) : null;
  return remote ? { remoteTask: remote } : {};
}

/** The remote task kept while it waits for input, and dropped once the call has its result. */
function keepRemoteTask(w: UnitWriter, call: ToolCall, outcome: ToolOutcome): void {
  if (outcome.waiting) w.store.putRemoteTask(call.id, outcome.waiting);
  else w.store.deleteRemoteTask(call.id);
}

/** The remote agent asks for input: the call waits for its output, the question in its `output` for the caller to read. */
function waitForOutput(w: UnitWriter, call: ToolCall, question: string): void {
  w.store.setToolCallOutput(call.id, "waiting_tool_output", question);
  w.emit("tool_call", w.store.toolCall(call.id));
}

/** A result saved (it taints the run when its tool is untrusted: engine finishCall, src/policy/trust.ts). */
function finish(w: UnitWriter, call: ToolCall, outcome: ToolOutcome, startedAt: string | null = null): void {
  w.finishCall(call, outcome.output, outcome.isError, startedAt);
  w.emit("tool_result", w.store.toolCall(call.id));
}
