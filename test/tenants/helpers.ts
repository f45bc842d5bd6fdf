/** Shared helpers for the tenant object tests: fresh tenants, their index stubs, and reports. */
import { env, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import type { SessionStatus } from "../../src/session-config/types";
import type { TenantIndex } from "../../src/tenants/tenant-index";
import type { SessionReport } from "../../src/tenants/types";

export { freshTenant } from "../support/tokens";

export function indexOf(tenantId: string) {
  return tenantIndexStub(env, tenantId);
}

/** 2030-03-10T12:00:00Z: a fixed clock, far from any day boundary. */
export const BASE_MS = Date.UTC(2030, 2, 10, 12, 0, 0);
export { DAY_MS } from "../../src/tenants/usage";

export function report(
  id: string,
  fields: Partial<Omit<SessionReport, "created_at" | "updated_at">> & { createdMs?: number; updatedMs?: number } = {},
): SessionReport {
  const { createdMs = BASE_MS, updatedMs = createdMs, ...rest } = fields;
  return {
    id,
    created_by: "user-1",
    status: "idle" as SessionStatus,
    stop_reason: null,
    usage: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    revision: 1,
    ...rest,
    created_at: new Date(createdMs).toISOString(),
    updated_at: new Date(updatedMs).toISOString(),
  };
}

/**
 * Asserts that a TenantIndex method rejects, calling it inside the object: a rejection that
 * crosses the test runner's RPC boundary is also reported as unhandled, even when awaited.
 */
export async function expectIndexRejects(tenantId: string, call: (index: TenantIndex) => Promise<unknown>, pattern: RegExp): Promise<void> {
  await runInDurableObject(indexOf(tenantId), async (instance: TenantIndex) => {
    await expect(call(instance)).rejects.toThrow(pattern);
  });
}
