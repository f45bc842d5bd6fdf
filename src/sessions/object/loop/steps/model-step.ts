/**
 * One model call: the unit that asks the model for its next response. The limits were checked
 * by `nextUnit`; this fits the history to the context budget (context/plan.ts), calls the
 * provider with an abortable, time-limited signal, passes the text it streams on to the
 * watchers, and saves the assistant message with its tool calls and its usage in one
 * transaction, unless a cancel, pause or restart made the result stale in the meantime. A run
 * with an `output_schema` asks for a structured answer (output/) and judges the final one.
 */
import { MAX_INVALID_OUTPUTS } from "../../../../limits";
import { calibratedRatio } from "../../context/estimate";
import { callMessages } from "../../context/plan";
import { runContext } from "../../context/run-context";
import { deadline } from "../../../../shared/deadline";
import type { StepScope, UnitWriter } from "../../engine/unit-scope";
import type { StoredSession } from "../../store/store";
import { providerFor } from "../../model";
import { asModelError } from "../../model/provider-errors";
import { ModelError } from "../../model/provider";
import { type CallUsage, type ModelRequest, type ModelResponse, type ModelStopReason, type TextDelta } from "../../model/provider";
import { UNIT_RETRY } from "../retry";
import { nextAttempt } from "../../../../shared/retry";
import type { UnitOutcome } from "../next-unit";
import { correctionText, judgeAnswer, rejudge, type Verdict } from "../../output/judge";
import { redactAnswer, redactModelText, redactOutputValue, requestedReasoning, streamsAnswerText } from "../../redaction";
import type { RedactionSettings } from "../../../../shared/redaction/settings";
import { parseModel } from "../../../../models/catalog";
import {
  addUsage,
  type ContentBlock,
  type OutputSchema,
  type ProviderToolSpec,
  type StopReason,
  type ToolCallPolicy,
  type ToolCallStatus,
  type ToolUseBlock,
} from "../../../../session-config/types";
import { judgeCalls } from "../tool-policy";

export async function runModelStep(scope: StepScope, maxTokens: number): Promise<UnitOutcome> {
  const { decision, session, run, tools, output } = runContext(scope, maxTokens, false);
  if (decision.kind !== "call") throw new Error("a model step was asked to summarize");
  const { provider, model } = providerFor(session.model, scope.config);
  const request: ModelRequest = {
    model,
    system: session.system,
    messages: callMessages(scope.store, decision),
    tools,
    ...withProviderTools(session),
    maxTokens,
    ...(output ? { output } : {}),
    ...withReasoning(session, run.redaction),
    ...withTraceparent(scope),
  };
  const streamed = new Map<number, number>();
  // `offset` lets a watcher start a block over when a retry writes it again.
  const onText = ({ index, text, kind }: TextDelta) => {
    const offset = streamed.get(index) ?? 0;
    streamed.set(index, offset + text.length);
    scope.streamText({ index, text, offset, ...(kind ? { kind } : {}) });
  };
  // Redacted answers are streamed from the provider all the same, but watchers get only the saved message.
  const shown = streamsAnswerText(run.redaction) ? onText : () => {};
  const called = await callModel(scope, (signal) =>
    provider.complete(request, signal, streamAnswer(scope, session, maxTokens) ? shown : undefined),
  );
  // A failed call's draft is dropped by `runUnit`, for every way a model unit ends unsaved.
  if (!called.ok) return called.outcome;
  const response = called.response;

  const ending = answerEnding(response.stopReason);
  const isOutputCall = (block: ContentBlock) => output !== null && block.type === "tool_use" && block.name === output.tool.name;
  // A final answer's tool calls are not run (a cut-off one may be half written), so none is kept.
  // Redacted before anything reads it: the tool calls are stored, run and sent back as redacted.
  const kept = redactAnswer(
    (ending.kind === "final" ? response.content.filter((block) => block.type !== "tool_use") : response.content).filter(
      (block) => !isOutputCall(block),
    ),
    run.redaction,
  );
  const toolUses = kept.filter((b): b is ToolUseBlock => b.type === "tool_use");
  // A run that owes a structured answer: an answer without tool calls to run is judged. The
  // output tool called beside other tools is premature and dropped; the model answers again
  // once it has their results. A refused or paused answer is not an answer to judge.
  const judged =
    output !== null && toolUses.length === 0 && ending.kind !== "continue" && !(ending.kind === "final" && ending.stopReason === "refusal");
  const verdict = judged
    ? redactVerdict(
        judgeAnswer(
          response.content.filter((block) => block.type !== "tool_use" || isOutputCall(block)),
          response.stopReason,
          output.schema,
          output.tool.name,
        ),
        output.schema,
        run.redaction,
      )
    : null;
  const content = verdict ? verdict.content : kept;
  scope.trace.note.output = content;
  const step = run.steps + 1;
  const now = scope.nowIso();
  const problem = ending.kind === "fail" ? unknownStopError(response.providerStopReason ?? null) : toolUseProblem(scope, toolUses);
  // Judged once, before any is saved: the decision fixes each call's first status.
  const policies = problem ? new Map<string, ToolCallPolicy>() : await judgeCalls(scope, toolUses);
  let outcome: UnitOutcome = "ok";
  // A stale answer is discarded, never saved; the provider served it all the same.
  scope.commit((w) => {
    const usage = addUsage(w.store.run().usage, response.usage, 1);
    const tokenRatio = calibratedRatio(inputOf(response.usage), decision.estimatedTokens);
    if (problem) {
      outcome = "failed";
      // Saving cannot succeed, and trying again would pay for the same answer again.
      w.updateRun({ steps: step, usage, token_ratio: tokenRatio });
      w.finishRun("failed", "model_error", problem);
      return;
    }
    // An empty answer is not kept: providers refuse an assistant turn without content.
    if (content.length > 0) {
      const message = w.store.appendMessage("assistant", content, now);
      toolUses.forEach((use, position) => {
        w.store.insertToolCall({
          id: use.id,
          step,
          messageSeq: message.seq,
          position,
          name: use.name,
          input: use.input,
          status: initialStatus(w, use.name, policies.get(use.id)),
          now,
          policy: policies.get(use.id) ?? null,
        });
      });
      w.emit("message", message);
      for (const call of w.store.openToolCalls()) w.emit("tool_call", call);
    }
    w.updateRun({ steps: step, attempts: 0, next_attempt_at: 0, usage, token_ratio: tokenRatio });
    if (ending.kind === "final" && ending.stopReason === "refusal") {
      // Sent again, the refused exchange would draw the same refusal, merged into the next
      // message: later runs go on without it, as the providers advise.
      w.store.omitFrom(w.store.run().run_start_seq);
    }
    if (verdict?.kind === "valid") {
      w.store.setRunOutput(verdict.output);
      w.finishRun("done", "end_turn", null);
    } else if (verdict?.kind === "invalid") {
      outcome = recordInvalidOutput(w, verdict.error, now);
    } else if (toolUses.length > 0 || ending.kind === "continue") {
      // A paused turn goes on with the next model step, which sends the answer so far back.
      w.continueRun();
    } else {
      w.finishRun("done", ending.kind === "final" ? ending.stopReason : "end_turn", null);
    }
  }, response.usage);
  return outcome;
}

/**
 * A verdict as saved under the run's redaction: its content redacted, and a valid structured
 * answer's strings redacted and judged again (a schema may refuse a mark where it wanted an address).
 */
function redactVerdict(verdict: Verdict, schema: OutputSchema, redaction: RedactionSettings | null | undefined): Verdict {
  const content = redactAnswer(verdict.content, redaction);
  if (verdict.kind === "invalid") return { ...verdict, error: redactModelText(verdict.error, redaction), content };
  const output = redactOutputValue(verdict.output, redaction);
  return output === verdict.output ? { ...verdict, content } : rejudge(output, schema, content);
}

/** The provider's own tools the session declared; the same on every call of a run, a paused turn's continuation included. */
function withProviderTools(session: Pick<StoredSession, "tools">): Pick<ModelRequest, "providerTools"> {
  const providerTools = session.tools.filter((tool): tool is ProviderToolSpec => tool.type === "provider");
  return providerTools.length > 0 ? { providerTools } : {};
}

/** The session's reasoning settings for the request, unless the provider signs reasoning that must be redacted. */
function withReasoning(session: Pick<StoredSession, "model" | "reasoning">, redaction: RedactionSettings | null | undefined) {
  const reasoning = requestedReasoning(session.reasoning ?? undefined, parseModel(session.model).provider === "anthropic", redaction);
  return reasoning ? { reasoning } : {};
}

/**
 * An answer longer than this is streamed even with nobody watching: a long answer sent in one body
 * leaves the connection silent for minutes, which networks between may cut.
 */
export const STREAM_ALWAYS_ABOVE_TOKENS = 16_384;

/** A session watched this recently still streams: a page that reconnects, or comes back between turns. */
export const RECENT_WATCH_MS = 60_000;

/**
 * Whether to ask for a stream: while somebody watches the session when the call starts, or did a
 * moment ago (the console shows the text as it is written); for a chat, whose page follows every
 * turn it sends (src/chat/, `metadata.chat_id`); or for a long answer. Otherwise the whole answer
 * in one body, which costs the object less to receive (BENCHMARKS.md). A watcher who comes while
 * an unstreamed answer is being written gets it whole when it is saved, as a `message` event.
 */
export function streamAnswer(
  scope: Pick<StepScope, "watchedWithin">,
  session: Pick<StoredSession, "metadata">,
  maxTokens: number,
): boolean {
  return scope.watchedWithin(RECENT_WATCH_MS) || typeof session.metadata?.chat_id === "string" || maxTokens > STREAM_ALWAYS_ABOVE_TOKENS;
}

/** What an answer's stop reason makes of the run. */
export type AnswerEnding =
  /** An answer: its tool calls run, or without any the run ends `end_turn`. */
  | { kind: "answer" }
  /** The run ends `done` with this reason; the answer's tool calls are not run. */
  | { kind: "final"; stopReason: Extract<StopReason, "max_tokens" | "refusal" | "context_window_exceeded"> }
  /** The provider paused the turn: the answer so far is saved and the next model step continues it. */
  | { kind: "continue" }
  /** A stop reason the platform does not know: the run fails rather than guess. */
  | { kind: "fail" };

/** Pure: the one place each provider stop reason gets its meaning for the run. */
export function answerEnding(stopReason: ModelStopReason): AnswerEnding {
  switch (stopReason) {
    case "end_turn":
    case "tool_use":
    case "stop_sequence":
      return { kind: "answer" };
    case "max_tokens":
    case "refusal":
    case "context_window_exceeded":
      return { kind: "final", stopReason };
    case "pause_turn":
      return { kind: "continue" };
    case "unknown":
      return { kind: "fail" };
  }
}

/** The run's error for a stop reason the platform does not know. */
export function unknownStopError(name: string | null): string {
  return name
    ? `the model stopped for a reason the platform does not know ("${name}")`
    : "the model stopped without a reason the platform knows";
}

/**
 * An answer not valid for the run's schema: after `MAX_INVALID_OUTPUTS` of them the run fails
 * with the last error; before, the model is told what was wrong, in a message of the history
 * (so a retried call is sent exactly the same), and the next model step asks again.
 */
function recordInvalidOutput(w: UnitWriter, error: string, now: string): UnitOutcome {
  const invalid = w.store.run().invalid_outputs + 1;
  w.updateRun({ invalid_outputs: invalid, output_error: error });
  if (invalid >= MAX_INVALID_OUTPUTS) {
    w.finishRun("failed", "invalid_output", error);
    return "failed";
  }
  const message = w.store.appendMessage("user", [{ type: "text", text: correctionText(error) }], now);
  w.emit("message", message);
  return "ok";
}

/**
 * Calls the provider with the unit's abort and time limit (which covers the answer, not the
 * building of the request). Resolves with the answer, or with how the unit ended once a failure
 * was recorded (or the unit went stale, which records nothing).
 */
export async function callModel(
  scope: StepScope,
  call: (signal: AbortSignal) => Promise<ModelResponse>,
): Promise<{ ok: true; response: ModelResponse } | { ok: false; outcome: UnitOutcome }> {
  const controller = scope.inflight.begin();
  const limit = deadline(scope.config.modelTimeoutMs);
  try {
    const response = await call(AbortSignal.any([controller.signal, limit.signal]));
    noteResponse(scope, response);
    return { ok: true, response };
  } catch (err) {
    noteFailure(scope, err);
    // Cancelled or paused meanwhile: nothing to record but what a whole answer cost.
    const outcome = scope.commit((w) => recordFailure(w, err), err instanceof ModelError ? err.served : null);
    return { ok: false, outcome };
  } finally {
    limit.clear();
    scope.inflight.end(controller);
  }
}

/** The request field that carries the unit's span to the provider, when the run is traced. */
export function withTraceparent(scope: StepScope): { traceparent?: string } {
  const traceparent = scope.traceparent();
  return traceparent ? { traceparent } : {};
}

function noteResponse(scope: StepScope, response: ModelResponse): void {
  const note = scope.trace.note;
  note.finishReasons = [response.providerStopReason ?? response.stopReason];
  if (response.model) note.responseModel = response.model;
  note.inputTokens = inputOf(response.usage);
  note.outputTokens = response.usage.output_tokens;
}

/** `error.type` of a failed call: the HTTP status when the provider answered one, else the kind of failure. */
function noteFailure(scope: StepScope, err: unknown): void {
  const note = scope.trace.note;
  if (err instanceof ModelError) {
    note.errorType = err.status !== null && err.status !== 200 ? String(err.status) : err.retryable ? "model_unavailable" : "model_error";
    note.error = err.message;
  } else {
    note.errorType = err instanceof Error ? err.name : "error";
  }
}

/** The whole input the provider counted for a call, cached parts included. */
function inputOf(usage: CallUsage): number {
  return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
}

/** A tool_use id must be new: each one gets exactly one tool_result, matched by id. */
function toolUseProblem(reads: Pick<StepScope, "store">, toolUses: ToolUseBlock[]): string | null {
  const ids = new Set<string>();
  for (const use of toolUses) {
    if (ids.has(use.id) || reads.store.toolCall(use.id)) return `the model reused the tool_use id "${use.id}"`;
    ids.add(use.id);
  }
  return null;
}

/**
 * The one place a call's first status is decided. A call the policy denied is `pending`: the tool
 * step ends it with its error, never running it. Tools that need approval, by their spec or by a
 * `@require_approval` permit, wait for a person first; client tools wait for the caller.
 */
function initialStatus(reads: Pick<StepScope, "toolbox">, name: string, policy?: ToolCallPolicy): ToolCallStatus {
  if (policy?.decision === "deny") return "pending";
  const tool = reads.toolbox().get(name);
  if (tool?.requiresApproval || policy?.decision === "require_approval") return "waiting_approval";
  if (tool?.kind === "client") return "waiting_tool_output";
  return "pending";
}

/**
 * A failed call: retried after a backoff while attempts remain and the failure may pass. A
 * whole answer that was refused as garbled was served and billed: its tokens count.
 */
export function recordFailure(w: UnitWriter, err: unknown): UnitOutcome {
  const error = asModelError(err);
  if (error.served) w.updateRun({ usage: addUsage(w.store.run().usage, error.served, 0) });
  const next = nextAttempt(UNIT_RETRY, w.store.run().attempts + 1, { transient: error.retryable, retryAfterMs: error.retryAfterMs });
  if (!next.retry) {
    w.finishRun(
      "failed",
      "model_error",
      next.reason === "fatal" ? error.message : `gave up after ${next.attempts} attempts: ${error.message}`,
    );
    return "failed";
  }
  w.updateRun({ attempts: next.attempts, next_attempt_at: Date.now() + next.delayMs, error: null });
  return "retry";
}
