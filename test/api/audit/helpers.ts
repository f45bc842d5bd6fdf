/** Reading the audit logs through the public API, for the audit tests. */
import { expect } from "vitest";
import type { AuditEntry } from "../../../src/audit/types";
import { call } from "../../support/api";

export async function auditPage(
  path: string,
  headers: Record<string, string>,
): Promise<{ data: AuditEntry[]; next_cursor: string | null }> {
  const res = await call(path, { headers });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { data: AuditEntry[]; next_cursor: string | null };
}

/** Every entry of the tenant's log, oldest first. */
export async function tenantLog(headers: Record<string, string>, query = ""): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  let cursor: string | null = null;
  do {
    const page = await auditPage(`/v1/tenant/audit-log?limit=200${query}${cursor ? `&cursor=${cursor}` : ""}`, headers);
    entries.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return entries.reverse();
}

export const actionsOf = (entries: readonly AuditEntry[]) => entries.map((entry) => entry.action);
