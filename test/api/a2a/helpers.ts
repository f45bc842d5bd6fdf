/** Helpers of the A2A workerd tests: JSON-RPC calls, a task's stream read whole, a scripted agent. */
import { expect } from "vitest";
import { call, callJson } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import type { Caller } from "../sessions/helpers";
import { createAgent } from "../agents/helpers";

export interface RpcAnswer {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export async function raw(who: Caller, agentId: string, body: string): Promise<RpcAnswer> {
  const res = await call(`/v1/agents/${agentId}/a2a`, {
    method: "POST",
    headers: { ...who.headers, "Content-Type": "application/json" },
    body,
  });
  expect(res.status, body).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return (await res.json()) as RpcAnswer;
}

export async function rpc(who: Caller, agentId: string, method: string, params: unknown): Promise<RpcAnswer> {
  const res = await callJson(`/v1/agents/${agentId}/a2a`, "POST", { jsonrpc: "2.0", id: "r1", method, params }, who.headers);
  expect(res.status).toBe(200);
  return (await res.json()) as RpcAnswer;
}

/** The results of a `SubscribeToTask` stream, in order. */
export async function subscribe(who: Caller, agentId: string, taskId: string): Promise<Record<string, unknown>[]> {
  const res = await callJson(
    `/v1/agents/${agentId}/a2a`,
    "POST",
    { jsonrpc: "2.0", id: "s1", method: "SubscribeToTask", params: { id: taskId } },
    who.headers,
  );
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const events = (await res.text()).split("\n\n").filter((event) => event.startsWith("data: "));
  return events.map((event) => (JSON.parse(event.slice(6)) as { result: Record<string, unknown> }).result);
}

/** The task states a stream's results went through. */
export function states(results: Record<string, unknown>[]): string[] {
  return results.flatMap((result) => {
    const status = ((result.task ?? result.statusUpdate) as { status?: { state: string } } | undefined)?.status;
    return status ? [status.state] : [];
  });
}

export const say = (words: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: words }], ...extra },
});

export async function agentScripted(who: Caller, steps: unknown[], tools: unknown[] = []) {
  const model = mockModel(uniqueKey("model"));
  await model.script(...(steps as never[]));
  return createAgent(who, { name: uniqueKey("helper"), model: model.key, tools } as never);
}

export type TaskJson = { id: string; contextId: string; status: { state: string; message?: { parts: { data?: unknown }[] } } };
