/** Helpers for the Scheduler tests: API keys, schedules read past the gateway, and waits. */
import { env, runInDurableObject } from "cloudflare:test";
import { schedulerStub } from "../../src/objects";
import type { Scheduler } from "../../src/schedules/scheduler";
import type { Firing, Schedule } from "../../src/schedules/types";
import { callJson } from "../support/api";
import { bearer } from "../support/tokens";

export interface CreatedKey {
  key_id: string;
  headers: Record<string, string>;
}

/** An API key of `tenantId` made through the route, with `sessions:read sessions:write`. */
export async function apiKeyOf(tenantId: string, options: { expires_at?: string } = {}): Promise<CreatedKey> {
  const admin = await bearer({ tenantId, subject: "admin", scopes: ["tenant:admin"] });
  const res = await callJson("/v1/api-keys", "POST", { name: "scheduler", scopes: ["sessions:read", "sessions:write"], ...options }, admin);
  if (res.status !== 201) throw new Error(`api key answered ${res.status}: ${await res.text()}`);
  const created = (await res.json()) as { key_id: string; key: string };
  return { key_id: created.key_id, headers: { Authorization: `Bearer ${created.key}` } };
}

/** The schedule as its Scheduler holds it, whatever the tenant's state (a suspended tenant's gateway answers 403). */
export async function storedSchedule(tenantId: string, id: string): Promise<Schedule> {
  const result = (await schedulerStub(env, tenantId).get(tenantId, id)) as unknown as { ok: true; value: Schedule };
  return result.value;
}

export async function storedFirings(tenantId: string, id: string): Promise<Firing[]> {
  const result = (await schedulerStub(env, tenantId).listFirings(tenantId, id, { limit: 200, cursor: null })) as {
    ok: true;
    value: { data: Firing[] };
  };
  return result.value.data;
}

export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: never happened; last seen ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `fn` inside the tenant's Scheduler, on its own storage. */
export function insideScheduler<T>(tenantId: string, fn: (instance: Scheduler, state: DurableObjectState) => Promise<T> | T): Promise<T> {
  return runInDurableObject(schedulerStub(env, tenantId), async (instance: Scheduler, state) => fn(instance, state));
}

export const finished = (firings: Firing[]) => firings.every((firing) => firing.outcome !== "pending");
