/**
 * `a2a` tools: a remote agent called over the Agent2Agent protocol. Each call reads the agent's
 * card, sends the model's message with a non-blocking `message/send` to the endpoint the card
 * names, keeps the task durably and asks after it (`tasks/get`) until it ends, cancelling it when
 * the call's time runs out; a task that asks for input makes the call wait for its output, which the
 * call's next run sends on the same task. Every request goes through the guarded fetch, to
 * origins the tenant allows, with the vault credential the tool names.
 */
import type { A2aToolSpec } from "../../../../session-config/types";
import { safeFetch, type SafeFetchResult } from "../../../../egress/safe-fetch";
import { describeCredentialFailure, NO_VAULT, sendWithCredential, type CredentialAuth } from "../../../../egress/credential-fetch";
import { checkAllowedTenantUrl } from "../../../../egress/tenant-url";
import { linearDelay, retrying, type Attempt, type RetryPolicy } from "../../../../shared/retry";
import { deadline } from "../../../../shared/deadline";
import { markAtMostOnce } from "../at-most-once";
import type { Tool, ToolContext, ToolOutcome } from "../tool";
import { cancelTaskRequest, cardEndpoint, getTaskRequest, readAnswer, sendRequest, type A2aAnswer } from "./protocol";

/** How long a call waits for the remote task to settle: longer than a webhook's answer. */
export const A2A_TIMEOUT_MS = 60_000;
export const A2A_MAX_RESPONSE_BYTES = 1024 * 1024;
/** A task still `working` after its send is asked after again, this often, within the timeout. */
const A2A_POLL_MS = 1_000;
const A2A_CANCEL_MS = 5_000;
const A2A_RETRY: RetryPolicy = { maxAttempts: 3, delayMs: linearDelay(500) };

/** The input every `a2a` tool offers: the message sent to the remote agent. */
export const A2A_TOOL_INPUT_SCHEMA = {
  type: "object",
  properties: { message: { type: "string", minLength: 1, description: "The message for the remote agent." } },
  required: ["message"],
  additionalProperties: false,
} as const;

export function a2aTool(spec: A2aToolSpec): Tool {
  const atMostOnce = spec.idempotent !== true;
  return {
    kind: "a2a",
    requiresApproval: spec.requires_approval === true,
    atMostOnce,
    definition: {
      name: spec.name,
      description: spec.description,
      input_schema: A2A_TOOL_INPUT_SCHEMA as unknown as Record<string, unknown>,
    },
    run: (input, ctx) => callAgent(spec, atMostOnce, input, ctx),
  };
}

type Reached<T> = { ok: true; value: T } | { ok: false; outcome: ToolOutcome };

async function callAgent(spec: A2aToolSpec, atMostOnce: boolean, input: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  const limit = deadline(A2A_TIMEOUT_MS);
  const signal = AbortSignal.any([ctx.signal, limit.signal]);
  try {
    const agent = new RemoteAgent(spec, { ...ctx, signal });
    const remote = ctx.remoteTask;
    // A task sent before a restart, still working then: it is asked after, never sent again.
    if (remote?.polling && remote.answer === undefined) {
      const endpoint = await agent.allowed(remote.endpoint);
      if (!endpoint.ok) return endpoint.outcome;
      const pending: A2aAnswer = { kind: "pending", taskId: remote.task_id, contextId: remote.context_id, state: "working" };
      const answer = await settle(
        agent,
        endpoint.value,
        `${ctx.idempotencyKey}:${remote.turns}`,
        { ok: true, value: pending },
        signal,
        ctx,
      );
      return await ended(agent, endpoint.value, answer, remote.turns, limit.signal);
    }
    // The answer to a task that asked for input goes to where the task lives, on the same task.
    const turn = remote?.answer !== undefined ? { ...remote, answer: remote.answer } : null;
    const endpoint = turn ? await agent.allowed(turn.endpoint) : await agent.endpoint();
    if (!endpoint.ok) return endpoint.outcome;
    let text: string;
    if (turn) text = turn.answer;
    else {
      const message = (input as { message?: unknown } | null)?.message;
      if (typeof message !== "string") return { output: 'the input must be { "message": string }', isError: true };
      text = message;
    }
    const turns = (turn?.turns ?? 0) + 1;
    const messageId = turns === 1 ? ctx.idempotencyKey : `${ctx.idempotencyKey}:${turns}`;
    const body = sendRequest(messageId, messageId, text, turn ? { taskId: turn.task_id, contextId: turn.context_id } : null);
    const notSent: Reached<A2aAnswer> = { ok: false, outcome: { output: "the remote agent was not called", isError: true } };
    const sent = await retrying(markAtMostOnce(atMostOnce).tries(A2A_RETRY), signal, notSent, () => agent.rpc(endpoint.value, body));
    const answer = await settle(agent, endpoint.value, messageId, sent, signal, ctx, turns);
    return await ended(agent, endpoint.value, answer, turns, limit.signal);
  } finally {
    limit.clear();
  }
}

/**
 * A task still working after its send: its ids are kept durably first (a restart asks after it
 * instead of sending again), then its state is read until it settles or the call's time is up.
 */
async function settle(
  agent: RemoteAgent,
  endpoint: string,
  messageId: string,
  first: Reached<A2aAnswer>,
  signal: AbortSignal,
  ctx: ToolContext,
  turns?: number,
): Promise<Reached<A2aAnswer>> {
  let answer = first;
  if (answer.ok && answer.value.kind === "pending" && turns !== undefined)
    await ctx.keepRemoteTask?.({ endpoint, task_id: answer.value.taskId, context_id: answer.value.contextId, turns, polling: true });
  const notRead: Reached<A2aAnswer> = { ok: false, outcome: { output: "the remote task's state was not read", isError: true } };
  while (answer.ok && answer.value.kind === "pending" && !signal.aborted) {
    const taskId = answer.value.taskId;
    await scheduler.wait(A2A_POLL_MS);
    if (signal.aborted) break;
    answer = await retrying(A2A_RETRY, signal, notRead, () => agent.rpc(endpoint, getTaskRequest(`${messageId}:get`, taskId)));
  }
  return answer;
}

/** The call's outcome; a task left working when the call's time ran out (or the call was cut) is cancelled. */
async function ended(
  agent: RemoteAgent,
  endpoint: string,
  answer: Reached<A2aAnswer>,
  turns: number,
  timedOut: AbortSignal,
): Promise<ToolOutcome> {
  if (answer.ok && answer.value.kind === "pending") {
    const { taskId, state } = answer.value;
    const cancelled = await agent.cancel(endpoint, taskId);
    const waited = timedOut.aborted
      ? `was still ${state} after ${A2A_TIMEOUT_MS / 1000} s`
      : `was still ${state} when the call was stopped`;
    return {
      output: `the remote task ${taskId} ${waited}; ${cancelled ? "it was cancelled" : "its cancel was not accepted"}`,
      isError: true,
    };
  }
  if (!answer.ok && timedOut.aborted)
    return { output: `the remote agent did not answer within ${A2A_TIMEOUT_MS / 1000} s (${answer.outcome.output})`, isError: true };
  if (!answer.ok) return answer.outcome;
  return outcomeOf(answer.value, endpoint, turns);
}

function outcomeOf(answer: A2aAnswer, endpoint: string, turns: number): ToolOutcome {
  switch (answer.kind) {
    case "result":
      return { output: answer.output, isError: answer.isError };
    case "input_required":
      return {
        output: answer.question !== "" ? answer.question : "the remote agent asks for input",
        isError: false,
        waiting: { endpoint, task_id: answer.taskId, context_id: answer.contextId, turns },
      };
    case "pending":
      return { output: `the remote task ${answer.taskId} was still ${answer.state} after ${A2A_TIMEOUT_MS / 1000} s`, isError: true };
    case "invalid":
      return { output: `the remote agent's answer is not A2A: ${answer.detail}`, isError: true };
  }
}

/** One remote agent as a call reaches it: its URLs checked as at creation, its requests guarded and credentialed. */
class RemoteAgent {
  readonly #auth: CredentialAuth | undefined;

  constructor(
    private readonly spec: A2aToolSpec,
    private readonly ctx: ToolContext,
  ) {
    this.#auth = spec.auth ? { name: spec.auth.credential, source: ctx.credentials ?? NO_VAULT } : undefined;
  }

  /** A URL the call may reach: the webhook rule, then the tenant's origins as they are now. */
  async allowed(raw: string): Promise<Reached<string>> {
    const { webhook_origins } = await this.ctx.callSigning();
    const target = checkAllowedTenantUrl(raw, { allowPrivateUrls: this.ctx.allowPrivateUrls, origins: webhook_origins });
    if (!target.ok) return { ok: false, outcome: { output: `refused: ${target.message}`, isError: true } };
    return { ok: true, value: target.url.href };
  }

  /** The card, read (a read may be repeated), and the endpoint it names, checked like the card's own URL. */
  async endpoint(): Promise<Reached<string>> {
    const card = await this.allowed(this.spec.agent_card_url);
    if (!card.ok) return card;
    const read = await retrying(
      A2A_RETRY,
      this.ctx.signal,
      { ok: false, outcome: { output: "the agent card was not read", isError: true } },
      () =>
        this.exchange(card.value, "GET", undefined, (body) => {
          const named = cardEndpoint(body);
          return named.ok ? { ok: true, value: named.url } : { ok: false, outcome: { output: named.detail, isError: true } };
        }),
    );
    if (!read.ok) return read;
    // A relative endpoint is read against the card's own URL.
    let url: string;
    try {
      url = new URL(read.value, card.value).href;
    } catch {
      return { ok: false, outcome: { output: "the agent card's endpoint is not a URL", isError: true } };
    }
    return this.allowed(url);
  }

  /** `tasks/cancel` once, on its own short time (the call's own may be over): whether the remote took it. */
  async cancel(url: string, taskId: string): Promise<boolean> {
    const agent = new RemoteAgent(this.spec, { ...this.ctx, signal: AbortSignal.timeout(A2A_CANCEL_MS) });
    const answer = await agent.rpc(url, cancelTaskRequest(`${taskId}:cancel`, taskId));
    return (
      answer.done &&
      answer.value.ok &&
      answer.value.value.kind === "result" &&
      answer.value.value.output.startsWith("the remote task ended canceled")
    );
  }

  rpc(url: string, body: string): Promise<Attempt<Reached<A2aAnswer>>> {
    return this.exchange(url, "POST", body, (text) => ({ ok: true, value: readAnswer(text) }));
  }

  /** One request: a timeout, a network error or a 5xx may pass; any other answer is final. */
  async exchange<T>(
    url: string,
    method: "GET" | "POST",
    body: string | undefined,
    read: (body: string) => Reached<T>,
  ): Promise<Attempt<Reached<T>>> {
    const ctx = this.ctx;
    const sent = await sendWithCredential(
      this.#auth,
      async (credential): Promise<SafeFetchResult> => {
        return safeFetch(
          url,
          {
            method,
            headers: {
              accept: "application/json",
              ...(body !== undefined ? { "content-type": "application/json" } : {}),
              ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
            },
            ...(body !== undefined ? { body } : {}),
            signal: ctx.signal,
            ...(credential ? { credential } : {}),
          },
          {
            allowPrivate: ctx.allowPrivateUrls,
            timeoutMs: A2A_TIMEOUT_MS,
            maxBytes: A2A_MAX_RESPONSE_BYTES,
            maxRedirects: 0,
            textOnly: true,
          },
        );
      },
      (result) => (result.ok ? result : null),
    );
    const fail = (output: string, transient: boolean, extra: Partial<ToolOutcome> = {}): Attempt<Reached<T>> => ({
      done: false,
      value: { ok: false, outcome: { output, isError: true, ...extra } },
      transient,
    });
    if (!sent.ok) return fail(describeCredentialFailure(sent), false, { credentialFailure: sent });
    const result = sent.result;
    if (!result.ok)
      return fail(
        `the remote agent was not reached (${result.reason}): ${result.detail}`,
        result.reason === "timeout" || result.reason === "network_error",
      );
    if (result.truncated) return fail(`the remote agent's answer is over ${A2A_MAX_RESPONSE_BYTES} bytes`, false);
    if (result.status < 200 || result.status >= 300)
      return fail(`the remote agent answered ${result.status}: ${result.body}`, result.status >= 500);
    const value = read(result.body);
    return value.ok ? { done: true, value } : { done: false, value, transient: false };
  }
}
