/** Building blocks of the scenarios: scripted model answers, webhook tools, and waiting for an ending. */
import type { ModelStep } from "../../support/mock-protocol";
import type { ApiClient, Session, SessionStatus, ToolSpec } from "./api-client";
import type { MockQueue } from "./mock-process";
import { waitFor } from "./wait";

import { FINAL_STATUSES } from "../../../src/session-config/types";

export { FINAL_STATUSES };

/** The result of an at-most-once call that a restart cut off, as the platform documents it. */
export const INTERRUPTED_BY_RESTART = "interrupted by a restart, not run again";

/** The webhook answer the mock gives when nothing else is scripted. */
export const DEFAULT_HOOK_OUTPUT = "webhook ok";

export function webhookTool(name: string, url: string, atMostOnce: boolean): ToolSpec {
  return {
    type: "webhook",
    name,
    description: `the ${name} webhook`,
    input_schema: { type: "object", properties: { n: { type: "integer" } } },
    url,
    at_most_once: atMostOnce,
  };
}

/** A model answer that calls tools, one tool_use block per `[id, name]`. */
export function callTools(calls: [id: string, name: string][], delayMs = 0): ModelStep {
  return {
    ...(delayMs > 0 ? { delay_ms: delayMs } : {}),
    reply: { content: calls.map(([id, name], n) => ({ type: "tool_use", id, name, input: { n } })) },
  };
}

/** A final model answer: text only, so the run ends with `end_turn`. */
export function say(text: string, delayMs = 0): ModelStep {
  return { ...(delayMs > 0 ? { delay_ms: delayMs } : {}), reply: { content: [{ type: "text", text }] } };
}

export async function waitForStatus(
  client: ApiClient,
  id: string,
  accept: (session: Session) => boolean,
  timeoutMs: number,
  what = "a session status",
): Promise<Session> {
  return waitFor(
    async () => {
      const session = await client.getSession(id);
      return accept(session) ? session : undefined;
    },
    { timeoutMs, intervalMs: 200, what: `${what} of ${id}` },
  );
}

export function waitForFinal(client: ApiClient, id: string, timeoutMs: number): Promise<Session> {
  return waitForStatus(client, id, (s) => FINAL_STATUSES.includes(s.status), timeoutMs, "a final status");
}

/** Waits, without touching the platform, until the mock has seen `count` requests under a key. */
export function waitForRequests<S>(queue: MockQueue<S>, count: number, timeoutMs: number) {
  return waitFor(
    async () => {
      const requests = await queue.requests();
      return requests.length >= count ? requests : undefined;
    },
    { timeoutMs, intervalMs: 50, what: `${count} requests under "${queue.key}"` },
  );
}
