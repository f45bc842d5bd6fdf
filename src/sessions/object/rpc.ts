/**
 * What the per-session object answers over RPC: the interface the `AGENT` namespace is typed by
 * (src/env.ts), so the gateway and the tenant objects depend on this shape, never on the class.
 * The methods' rules are documented on the class (session-object.ts).
 */
import type { Limits } from "../../limits";
import type { AgentResult, Message, Page, RunInput, RunOptions, Session, SessionInit, Step, ToolCall } from "../types";
import type { StreamFilter } from "./events/streams";
import type { RequestOutcome } from "./request-keys";

export interface AgentRpc {
  create(init: SessionInit, input: RunInput | null): Promise<AgentResult<Session>>;
  get(): Promise<AgentResult<Session>>;
  start(input: RunInput, cap?: Limits | null, options?: RunOptions, requestKey?: string | null): Promise<AgentResult<Session>>;
  requestOutcome(requestKey: string): Promise<AgentResult<RequestOutcome | null>>;
  enqueue(input: RunInput, cap?: Limits | null, options?: RunOptions, requestKey?: string | null): Promise<AgentResult<Session>>;
  interrupt(input: RunInput, cap?: Limits | null, options?: RunOptions, requestKey?: string | null): Promise<AgentResult<Session>>;
  cancel(): Promise<AgentResult<Session>>;
  pause(): Promise<AgentResult<Session>>;
  resume(cap?: Limits | null): Promise<AgentResult<Session>>;
  slotGranted(): Promise<AgentResult<Session>>;
  approve(callId: string, decidedBy?: string | null): Promise<AgentResult<Session>>;
  deny(callId: string, reason: string | null, decidedBy?: string | null): Promise<AgentResult<Session>>;
  submitToolOutput(callId: string, output: string, isError: boolean): Promise<AgentResult<Session>>;
  listMessages(after: number, limit: number): Promise<AgentResult<Page<Message>>>;
  listToolCalls(cursor?: string | null, limit?: number): Promise<AgentResult<Page<ToolCall>>>;
  listSteps(after: number, limit: number): Promise<AgentResult<Page<Step>>>;
  erase(): Promise<AgentResult<null>>;
  closeStreams(filter: StreamFilter, why: "credentials" | "suspended"): Promise<number>;
  /** The event stream (`GET /v1/sessions/{id}/events`), asked for by the gateway only. */
  fetch(request: Request): Promise<Response>;
}
