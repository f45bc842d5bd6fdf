/** Helpers for the usage tests: a tenant admin, API keys made through the API, and polling the rollups. */
import { expect } from "vitest";
import { callJson } from "../../support/api";
import { type Caller, caller, getJson } from "../sessions/helpers";

export interface UsageCounts {
  runs: number;
  steps: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
}
export type UsageRow = Record<string, string | number | null> & UsageCounts;
export interface UsageReport {
  from: string;
  to: string;
  group_by: string[];
  data: UsageRow[];
  totals: UsageCounts;
}

export function admin(tenantId: string): Promise<Caller> {
  return caller(tenantId, ["tenant:admin"], "admin");
}

/** POST /v1/api-keys by `who`, expecting 201: a caller with the new key, and its id. */
export async function keyCaller(who: Caller, body: Record<string, unknown> = {}): Promise<Caller & { keyId: string }> {
  const res = await callJson(
    "/v1/api-keys",
    "POST",
    { name: "backend", scopes: ["sessions:read", "sessions:write"], ...body },
    who.headers,
  );
  expect(res.status).toBe(201);
  const created = (await res.json()) as { key: string; key_id: string };
  return {
    tenantId: who.tenantId,
    subject: `key:${created.key_id}`,
    keyId: created.key_id,
    headers: { Authorization: `Bearer ${created.key}` },
  };
}

export function usageOf(who: Caller, query = ""): Promise<UsageReport> {
  return getJson<UsageReport>(who, `/v1/tenant/usage${query ? `?${query}` : ""}`);
}

/** Polls the rollup until `ready` holds: the index hears of a run's end just after the session shows it. */
export async function usageWhen(who: Caller, ready: (report: UsageReport) => boolean, query = "", timeoutMs = 8_000): Promise<UsageReport> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const report = await usageOf(who, query);
    if (ready(report)) return report;
    if (Date.now() > deadline) throw new Error(`usage stayed ${JSON.stringify(report.totals)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const toolLoop = (id: string, usage: Record<string, number>) => ({
  reply: { content: [{ type: "tool_use", id, name: "get_time", input: {} }], usage },
});
export const answer = (usage: Record<string, number>) => ({ reply: { content: [{ type: "text", text: "done" }], usage } });
export const GET_TIME = [{ type: "builtin", name: "get_time" }];
