/**
 * One model call: the unit that asks the model for its next response. The limits were checked
 * by `nextUnit`; this calls the provider with an abortable, time-limited signal, passes the text
 * it streams on to the watchers, and saves the assistant message with its tool calls in one
 * transaction, unless a cancel, pause or restart made the result stale in the meantime.
 */
import { MAX_ATTEMPTS } from "../limits";
import { deadline } from "./deadline";
import type { UnitScope } from "./host";
import { providerFor } from "./model";
import { ModelError, type TextDelta } from "./model/provider";
import { backoffDelay } from "./retry";
import { toolDefinitions } from "./tools/registry";
import type { AgentHost } from "./host";
import type { ToolCallStatus, ToolUseBlock } from "./types";

export async function runModelStep(scope: UnitScope, maxTokens: number): Promise<void> {
  const host = scope.host;
  const session = host.requireSession();
  const run = host.store.run();
  const toolbox = host.toolbox();
  const provider = providerFor(session.model, host.config);
  const controller = host.inflight.begin();
  const limit = deadline(host.config.modelTimeoutMs);
  const streamed = new Map<number, number>();
  // Text reaches the watchers only while this unit is current: after a cancel or a pause none
  // of its text goes out. `offset` lets a watcher start a block over when a retry writes it again.
  const onText = ({ index, text }: TextDelta) => {
    if (!scope.current) return;
    const offset = streamed.get(index) ?? 0;
    streamed.set(index, offset + text.length);
    host.events.delta({ index, text, offset }, host.nowIso());
  };
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
      onText,
    );
  } catch (err) {
    if (!scope.current) return; // cancelled or paused meanwhile: nothing to record
    return recordFailure(host, err);
  } finally {
    limit.clear();
    host.inflight.end(controller);
  }

  const toolUses = response.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
  const step = run.steps + 1;
  const now = host.nowIso();
  const usage = {
    steps: run.usage.steps + 1,
    input_tokens: run.usage.input_tokens + response.usage.input_tokens,
    output_tokens: run.usage.output_tokens + response.usage.output_tokens,
  };
  const problem = toolUseProblem(host, toolUses);
  const saved = scope.commit(() => {
    if (problem) {
      // Saving cannot succeed, and trying again would pay for the same answer again.
      host.updateRun({ steps: step, usage });
      host.finishRun("failed", "model_error", problem);
      return;
    }
    // An empty answer is not kept: providers refuse an assistant turn without content.
    if (response.content.length > 0) {
      const message = host.store.appendMessage("assistant", response.content, now);
      toolUses.forEach((use, position) => {
        host.store.insertToolCall({ id: use.id, step, messageSeq: message.seq, position, name: use.name, input: use.input, status: initialStatus(host, use.name), now });
      });
      host.emit("message", message);
      for (const call of host.store.openToolCalls()) host.emit("tool_call", call);
    }
    host.updateRun({ steps: step, attempts: 0, next_attempt_at: 0, usage });
    if (toolUses.length === 0) host.finishRun("done", "end_turn", null);
    else host.continueRun();
  });
  if (!saved) return; // a stale answer is discarded, never saved
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

/** A failed call: retried after a backoff while attempts remain and the failure may pass. */
function recordFailure(host: AgentHost, err: unknown): void {
  const error = err instanceof ModelError ? err : new ModelError(`model call failed: ${String(err)}`, true);
  const attempts = host.store.run().attempts + 1;
  if (!error.retryable) return host.finishRun("failed", "model_error", error.message);
  if (attempts >= MAX_ATTEMPTS) return host.finishRun("failed", "model_error", `gave up after ${attempts} attempts: ${error.message}`);
  host.updateRun({ attempts, next_attempt_at: Date.now() + backoffDelay(attempts, error.retryAfterMs), error: null });
}
