/**
 * One model call: the unit that asks the model for its next response. It checks the run's
 * limits first, calls the provider with an abortable, time-limited signal, and saves the
 * assistant message with its tool calls in one transaction, unless a cancel, pause or
 * restart made the result stale in the meantime.
 */
import { MAX_ATTEMPTS } from "../limits";
import { deadline } from "./deadline";
import type { AgentHost } from "./host";
import { providerFor } from "./model";
import { ModelError } from "./model/provider";
import { backoffDelay } from "./retry";
import { toolDefinitions } from "./tools/registry";
import type { StopReason, ToolCallStatus, ToolUseBlock } from "./types";

export async function runModelStep(host: AgentHost, generation: number): Promise<void> {
  const session = host.requireSession();
  const run = host.store.run();
  const limits = session.limits;

  if (run.steps >= limits.max_steps_per_run) return finishRun(host, "done", "step_limit", null);
  const used = run.usage.input_tokens + run.usage.output_tokens;
  if (used >= limits.max_tokens_per_session) return finishRun(host, "done", "token_limit", null);
  // The tenant's daily budget (tenant-wide, so known from the index's last answer).
  if (limits.max_tokens_per_day !== null && (host.tenantTokensToday ?? 0) >= limits.max_tokens_per_day) {
    return finishRun(host, "done", "token_limit", null);
  }
  const maxTokens = Math.min(limits.max_tokens_per_call, limits.max_tokens_per_session - used);

  const toolbox = host.toolbox();
  const provider = providerFor(session.model, host.config);
  const controller = host.beginCall();
  const limit = deadline(host.config.modelTimeoutMs);
  let response;
  try {
    response = await provider.complete(
      {
        model: session.model,
        system: session.system,
        messages: host.store.messages().map(({ role, content }) => ({ role, content })),
        tools: toolDefinitions(toolbox),
        maxTokens,
      },
      AbortSignal.any([controller.signal, limit.signal]),
    );
  } catch (err) {
    if (!host.isCurrent(generation)) return; // cancelled or paused meanwhile: nothing to record
    return recordFailure(host, err);
  } finally {
    limit.clear();
    host.endCall(controller);
  }
  if (!host.isCurrent(generation)) return; // a stale answer is discarded, never saved

  const toolUses = response.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
  const step = run.steps + 1;
  const now = host.nowIso();
  const usage = {
    steps: run.usage.steps + 1,
    input_tokens: run.usage.input_tokens + response.usage.input_tokens,
    output_tokens: run.usage.output_tokens + response.usage.output_tokens,
  };
  const problem = toolUseProblem(host, toolUses);
  if (problem) {
    // Saving cannot succeed, and trying again would pay for the same answer again.
    host.updateRun({ steps: step, usage });
    return finishRun(host, "failed", "model_error", problem);
  }
  host.transaction(() => {
    // An empty answer is not kept: providers refuse an assistant turn without content.
    if (response.content.length > 0) {
      const saved = host.store.appendMessage("assistant", response.content, now);
      toolUses.forEach((use, position) => {
        host.store.insertToolCall({ id: use.id, step, messageSeq: saved.seq, position, name: use.name, input: use.input, status: initialStatus(host, use.name), now });
      });
      host.emit("message", saved);
      for (const call of host.store.openToolCalls()) host.emit("tool_call", call);
    }
    host.updateRun({ steps: step, attempts: 0, next_attempt_at: 0, usage });
  });

  if (toolUses.length === 0) return finishRun(host, "done", "end_turn", null);
  await host.continueRun();
  await host.report();
}

/** A tool_use id must be new: each one gets exactly one tool_result, matched by id. */
function toolUseProblem(host: AgentHost, toolUses: ToolUseBlock[]): string | null {
  const ids = new Set<string>();
  for (const use of toolUses) {
    if (ids.has(use.id) || host.store.toolCall(use.id)) return `the model reused the tool_use id "${use.id}"`;
    ids.add(use.id);
  }
  return null;
}

/** Client tools wait for the caller; tools that need approval wait for a person first. */
function initialStatus(host: AgentHost, name: string): ToolCallStatus {
  const tool = host.toolbox().get(name);
  if (tool?.requiresApproval) return "waiting_approval";
  if (tool?.kind === "client") return "waiting_tool_output";
  return "pending";
}

async function recordFailure(host: AgentHost, err: unknown): Promise<void> {
  const error = err instanceof ModelError ? err : new ModelError(`model call failed: ${String(err)}`, true);
  const run = host.store.run();
  const attempts = run.attempts + 1;
  if (!error.retryable) return finishRun(host, "failed", "model_error", error.message);
  if (attempts >= MAX_ATTEMPTS) {
    return finishRun(host, "failed", "model_error", `gave up after ${attempts} attempts: ${error.message}`);
  }
  const at = Date.now() + backoffDelay(attempts, error.retryAfterMs);
  host.updateRun({ attempts, next_attempt_at: at, error: null });
  await host.scheduleAt(at);
}

export async function finishRun(host: AgentHost, status: "done" | "failed", stopReason: StopReason, error: string | null): Promise<void> {
  host.updateRun({ status, stop_reason: stopReason, error, attempts: 0, next_attempt_at: 0 });
  await host.report();
  await host.ensureAlarm();
}
