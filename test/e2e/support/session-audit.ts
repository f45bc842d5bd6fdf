/**
 * After a run survived crashes: reads one session back through the API and the mock server's
 * records and lists every broken promise, so a chaos test can report them all at once.
 */
import type { ApiClient, Session } from "./api-client";
import { asSentToModel, historyProblems, withoutCacheMarks } from "./history";
import type { MockHook, MockQueue, ModelStep, RecordedRequest } from "./mock-process";
import { INTERRUPTED_BY_RESTART } from "./scenario";

export interface AuditedSession {
  id: string;
  client: ApiClient;
  model: MockQueue<ModelStep>;
  /** The at-most-once webhook and the idempotent one, by tool name. */
  atMostOnce: { name: string; hook: MockHook };
  idempotent: { name: string; hook: MockHook };
}

export interface Audit {
  session: Session;
  problems: string[];
  /** How many calls a kill cut off, model and webhook together: the chaos actually hit. */
  cutOff: number;
  /** At-most-once calls that a restart interrupted and that were therefore not run again. */
  interrupted: number;
}

const keyOf = (r: RecordedRequest) => r.headers["idempotency-key"] ?? "(none)";

function countBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

export async function auditSession(audited: AuditedSession, successOutput: string): Promise<Audit> {
  const { id, client } = audited;
  const session = await client.getSession(id);
  const messages = await client.messages(id);
  const calls = await client.toolCalls(id);
  const problems = historyProblems(messages, calls).map((p) => `${id}: ${p}`);

  // Every model call was sent a prefix of the final history: nothing saved was lost or rewritten.
  const sent = asSentToModel(messages);
  const modelCalls = await audited.model.requests();
  for (const [n, request] of modelCalls.entries()) {
    const asked = withoutCacheMarks((request.body as { messages?: unknown[] } | null)?.messages ?? []);
    if (JSON.stringify(asked) !== JSON.stringify(sent.slice(0, asked.length))) {
      problems.push(`${id}: model call ${n} was sent a history that is not a prefix of the saved one`);
    }
  }

  const onceCalls = await audited.atMostOnce.hook.requests();
  for (const [key, requests] of countBy(onceCalls, keyOf)) {
    if (requests.length > 1) problems.push(`${id}: at-most-once webhook received ${requests.length} calls for ${key}`);
  }
  const retriedCalls = await audited.idempotent.hook.requests();
  for (const [key, requests] of countBy(retriedCalls, keyOf)) {
    if (new Set(requests.map((r) => r.body_text)).size > 1) problems.push(`${id}: idempotent webhook got different bodies for ${key}`);
  }

  for (const call of calls) {
    const key = `${id}:${call.id}`;
    const received = (call.name === audited.atMostOnce.name ? onceCalls : retriedCalls).filter((r) => keyOf(r) === key);
    const succeeded = call.status === "done" && call.output === successOutput;
    if (call.name === audited.atMostOnce.name && succeeded && received.length !== 1) {
      problems.push(`${id}: at-most-once call ${call.id} succeeded with ${received.length} webhook calls`);
    }
    if (call.name === audited.idempotent.name && succeeded && received.length < 1) {
      problems.push(`${id}: idempotent call ${call.id} succeeded without a webhook call`);
    }
  }

  const cutOff = [...modelCalls, ...onceCalls, ...retriedCalls].filter((r) => r.disconnected_at !== undefined).length;
  const interrupted = calls.filter((c) => c.output === INTERRUPTED_BY_RESTART).length;
  return { session, problems, cutOff, interrupted };
}
