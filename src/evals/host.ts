/**
 * What an eval needs from the layers above it, declared here and handed in by the runtime's
 * AgentStore (src/lifecycle/agent-store.ts): starting a session through the ordinary create
 * path as the eval's creator, reading how a session ended, and cancelling one.
 */
import { base64url } from "../shared/base64";
import { SESSION_ID_PREFIX, SESSION_ID_RANDOM_BYTES } from "../session-config/ids";
import type { EvalCreator } from "./types";

/** A session an eval starts: an agent version's, or a judge's (a model and the judge's prompt). */
export interface EvalSessionRequest {
  agent?: string;
  model?: string;
  input: unknown;
  metadata: Record<string, string>;
}

/** Whether sessions may be started for the creator now, and as whom (opaque here). */
export type EvalGate = { kind: "go"; actor: unknown } | { kind: "stop"; error: string } | { kind: "later" };

export type EvalStart =
  | { kind: "started" }
  /** The tenant's run slots or budgets are in use (a 429): try again after this long. */
  | { kind: "later"; retryAfterMs: number }
  /** Refused for good (the agent was archived, the input is invalid): the item fails with why. */
  | { kind: "refused"; error: string };

/** How a session stands; `final` once it ended, with what a scorer reads of it. */
export interface SessionOutcome {
  status: string;
  final: boolean;
  answer: string | null;
  output: unknown;
  toolCalls: { name: string; input: unknown }[];
  steps: number;
  /** Priced as the usage report prices it; null for a model without a price. */
  costUsd: number | null;
}

export interface EvalHost {
  gate(tenantId: string, creator: EvalCreator, now: number): Promise<EvalGate>;
  start(actor: unknown, request: EvalSessionRequest, sessionId: string): Promise<EvalStart>;
  /** Null when the session does not exist (never created, or erased). */
  read(tenantId: string, sessionId: string): Promise<SessionOutcome | null>;
  cancel(tenantId: string, sessionId: string): Promise<void>;
}

/**
 * The session of an eval's item (`part` "item") or of one of its judges: derived from the eval,
 * so a start repeated after a crash names the session the first try created.
 */
export async function evalSessionId(evalId: string, position: number, part: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`eval:${evalId}:${position}:${part}`));
  return SESSION_ID_PREFIX + base64url(new Uint8Array(digest).slice(0, SESSION_ID_RANDOM_BYTES));
}
