/** Helpers for the agent route tests: agents created and changed through the public API. */
import type { Agent, AgentVersion } from "../../../src/agents/types";
import type { Scope } from "../../../src/auth/principal";
import { call, callJson } from "../../support/api";
import { freshTenant } from "../../support/tokens";
import { type Caller, caller } from "../sessions/helpers";

export type { Agent, AgentVersion };

export const AUTHOR: readonly Scope[] = ["sessions:read", "sessions:write", "agents:write"];

export function author(tenantId = freshTenant()): Promise<Caller> {
  return caller(tenantId, AUTHOR);
}

/** POST /v1/agents, expecting 201. */
export async function createAgent(who: Caller, body: Record<string, unknown>): Promise<Agent> {
  const res = await callJson("/v1/agents", "POST", body, who.headers);
  if (res.status !== 201) throw new Error(`create agent answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Agent;
}

export function patchAgent(who: Caller, id: string, body: unknown): Promise<Response> {
  return callJson(`/v1/agents/${id}`, "PATCH", body, who.headers);
}

export function putAlias(who: Caller, id: string, alias: string, version: number): Promise<Response> {
  return callJson(`/v1/agents/${id}/aliases/${alias}`, "PUT", { version }, who.headers);
}

export function archive(who: Caller, id: string): Promise<Response> {
  return call(`/v1/agents/${id}`, { method: "DELETE", headers: who.headers });
}

/** The system prompt of each model request the mock model `model` received. */
export function systemOf(body: unknown): unknown {
  const system = (body as { system?: unknown }).system;
  if (Array.isArray(system)) return system.map((block: { text?: string }) => block.text).join("");
  return system;
}
