/**
 * The `summary` unit: folds the older messages into the session's running summary with one
 * model call, before a model step whose history would pass the budget. Like a model step it
 * is retried with the loop's backoff, saves nothing once its generation is stale, and counts
 * its tokens in the session's usage (not in its steps). A crash during the call leaves the
 * previous summary in place, and the next alarm asks again with the same input.
 */
import { estimateMessageTokens } from "../../context/estimate";
import { runContext } from "../../context/run-context";
import { summaryBlock, summaryRequest, summaryText } from "../../context/summary-prompt";
import type { StepScope } from "../../engine/unit-scope";
import { providerFor } from "../../model";
import { ModelError } from "../../model/provider";
import { callModel, recordFailure, withTraceparent } from "./model-step";
import { redactModelText } from "../../redaction";
import { addUsage } from "../../../../session-config/types";
import type { UnitOutcome } from "../next-unit";

export async function runSummaryStep(scope: StepScope, maxTokens: number): Promise<UnitOutcome> {
  const { decision, session, run } = runContext(scope, maxTokens);
  if (decision.kind !== "summarize") return "ok"; // nothing to fold any more: the model step comes next

  const folded = scope.store.messageRange(decision.fromSeq, decision.throughSeq);
  const { provider, model } = providerFor(session.model, scope.config);
  const request = { ...summaryRequest(model, decision.previous?.content ?? null, folded, decision.maxTokens), ...withTraceparent(scope) };
  const called = await callModel(scope, (signal) => provider.complete(request, signal));
  if (!called.ok) return called.outcome;
  const response = called.response;

  // The summary is the model's writing: redacted like its answers, before it is saved and sent on.
  const written = summaryText(response.content);
  const text = written === null ? null : redactModelText(written, run.redaction);
  const now = scope.nowIso();
  let outcome: UnitOutcome = "ok";
  // A stale summary is discarded, never saved; the provider served it all the same.
  scope.commit((w) => {
    const usage = addUsage(w.store.run().usage, response.usage, 0);
    if (text === null) {
      // The tokens were spent all the same; the call is tried again like any garbled answer.
      w.updateRun({ usage });
      outcome = recordFailure(w, new ModelError("the model answered a summary request with no text", true, 200));
      return;
    }
    w.store.saveSummary({
      first_seq: decision.previous?.first_seq ?? decision.fromSeq,
      last_seq: decision.throughSeq,
      content: text,
      tokens: estimateMessageTokens([summaryBlock(text)]),
      created_at: now,
    });
    w.updateRun({ usage, attempts: 0, next_attempt_at: 0 });
  }, response.usage);
  return outcome;
}
