/** The tenant index's audit calls: entries recorded for changes made elsewhere (agents, memory, sessions), and the log's pages. */
import { parseAuditChange, parseAuditContext, parseAuditEntry } from "../../audit/entry";
import { listAuditEntries, parseAuditListInput } from "../../audit/store";
import type { AuditEntry, AuditListInput, AuditRecordInput } from "../../audit/types";
import type { Page } from "../../session-config/types";
import type { IndexCore } from "./core";
import type { IndexHost } from "./host";

export type AuditHost = Pick<IndexCore, "audit" | "keepAudit" | "platformAudit">;

/** Entries already made (with their ids) are kept as they are; changes get an entry made here. Another tenant's entry is refused. */
export async function recordAudit(
  core: AuditHost,
  host: IndexHost,
  tenantId: string,
  entries: readonly (AuditEntry | AuditRecordInput)[],
): Promise<AuditEntry[]> {
  if (!Array.isArray(entries)) throw new TypeError("entries: not a list");
  const parsed = entries.map((item: AuditEntry | AuditRecordInput) =>
    "change" in item ? { by: parseAuditContext(item.by), change: parseAuditChange(item.change) } : parseAuditEntry(item),
  );
  for (const item of parsed) if ("id" in item && item.tenant_id !== tenantId) throw new TypeError("audit entry: another tenant's");
  const kept = host.transaction(() => parsed.map((item) => ("id" in item ? core.keepAudit(item) : core.audit(item.by, item.change))));
  await core.platformAudit.flush();
  return kept;
}

/** A null host (no tenant entered yet) has an empty log: the input is still checked. */
export function listAuditLog(host: IndexHost | null, input: AuditListInput): Page<AuditEntry> {
  const checked = parseAuditListInput(input);
  return host ? listAuditEntries(host.sql, { ...checked, tenant_id: null }) : { data: [], next_cursor: null };
}
