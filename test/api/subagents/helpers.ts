/** Helpers for the sub-agent tests: agents whose sessions answer from a mock model of their own. */
import { expect } from "vitest";
import type { Session } from "../../../src/session-config/types";
import { callJson } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { author, createAgent } from "../agents/helpers";
import { type Caller, getJson } from "../sessions/helpers";

export { author };

/** The two providers' mocks: a model id is the mock's key, with `openai:` for Chat Completions. */
export const PROVIDERS = [
  { name: "Anthropic", id: (key: string) => key },
  { name: "OpenAI-compatible", id: (key: string) => `openai:${key}` },
] as const;
export type Provider = (typeof PROVIDERS)[number];

export type MockModel = ReturnType<typeof mockModel>;

/** An agent on a fresh mock model; returns both. */
export async function agentOn(
  who: Caller,
  provider: Provider,
  definition: Record<string, unknown> = {},
): Promise<{ id: string; model: MockModel }> {
  const model = mockModel(uniqueKey("model"));
  const agent = await createAgent(who, {
    name: uniqueKey("agent")
      .replace(/[^A-Za-z0-9_-]/g, "_")
      .slice(0, 60),
    model: provider.id(model.key),
    ...definition,
  });
  return { id: agent.id, model };
}

export function agentTool(name: string, agent: string, extra: Record<string, unknown> = {}) {
  return { type: "agent", name, description: `Hands the task to ${name}.`, agent, ...extra };
}

/** The child sessions of `parentId`, through GET /v1/sessions?parent_session_id. */
export async function childrenOf(
  who: Caller,
  parentId: string,
): Promise<{ id: string; status: string; parent_session_id: string | null }[]> {
  return (
    await getJson<{ data: { id: string; status: string; parent_session_id: string | null }[] }>(
      who,
      `/v1/sessions?parent_session_id=${parentId}&limit=100`,
    )
  ).data;
}

export async function session(who: Caller, id: string): Promise<Session> {
  return getJson<Session>(who, `/v1/sessions/${id}`);
}

export async function setLimits(tenantId: string, limits: Record<string, unknown>): Promise<void> {
  const platformAdmin = await bearer({ tenantId: freshTenant("ops"), scopes: ["platform:admin"], subject: "operator" });
  const res = await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", limits, platformAdmin);
  expect(res.status).toBe(200);
}

/** Polls until `check` holds, or fails with what it last saw. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not there: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
