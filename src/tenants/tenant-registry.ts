/**
 * The TenantRegistry Durable Object: a single instance, named "registry", that records every
 * tenant once, when its index is first used. Storage: see storage.md.
 */
import { DurableObject } from "cloudflare:workers";
import { PLATFORM_ACTIONS } from "../audit/actions";
import { auditEntry, newAuditId, parseAuditContext, parseAuditEntry } from "../audit/entry";
import { appendAuditEntry, listAuditEntries, parseAuditListInput } from "../audit/store";
import type { AuditContext, AuditEntry, AuditListInput } from "../audit/types";
import type { Jurisdiction, Placement } from "../objects";
import { isJurisdiction, type JurisdictionChange, readPlacement, writeJurisdiction } from "./placement-store";
import type { Page } from "../session-config/types";
import { isValidTenantId } from "../auth/principal";
import { migrate } from "../storage/migrations";
import { TENANT_REGISTRY_MIGRATIONS } from "./registry-migrations";
import {
  beginDeletion,
  type DeletionRecord,
  finishDeletion,
  isRegistered,
  listTenants,
  readDeletion,
  registerTenant,
} from "./registry-store";
import type { TenantRegistryRpc } from "./rpc";
import type { PageInput, TenantEntry } from "./types";
import { requireNow, requirePageLimit, requireString } from "../shared/validate";

export class TenantRegistry extends DurableObject<Cloudflare.Env> implements TenantRegistryRpc {
  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => void migrate(ctx.storage, TENANT_REGISTRY_MIGRATIONS));
  }

  async register(tenantId: string, now: number): Promise<boolean> {
    if (!isValidTenantId(tenantId)) throw new TypeError("tenantId is not a valid tenant id");
    return registerTenant(this.ctx.storage.sql, tenantId, requireNow(now));
  }

  async beginDeletion(tenantId: string, startedAt: number): Promise<DeletionRecord> {
    if (!isValidTenantId(tenantId)) throw new TypeError("tenantId is not a valid tenant id");
    return beginDeletion(this.ctx.storage.sql, tenantId, requireNow(startedAt));
  }

  async finishDeletion(tenantId: string, startedAt: number, finishedAt: number): Promise<DeletionRecord> {
    if (!isValidTenantId(tenantId)) throw new TypeError("tenantId is not a valid tenant id");
    return this.ctx.storage.transactionSync(() =>
      finishDeletion(this.ctx.storage.sql, tenantId, requireNow(startedAt), requireNow(finishedAt)),
    );
  }

  async deletion(tenantId: string): Promise<DeletionRecord | null> {
    return isValidTenantId(tenantId) ? readDeletion(this.ctx.storage.sql, tenantId) : null;
  }

  async entryFootprint(tenantId: string): Promise<{ tenant_rows: number; deletion_rows: number }> {
    const sql = this.ctx.storage.sql;
    return {
      tenant_rows: isRegistered(sql, tenantId) ? 1 : 0,
      deletion_rows: readDeletion(sql, tenantId) ? 1 : 0,
    };
  }

  async knows(tenantId: string): Promise<boolean> {
    return isValidTenantId(tenantId) && isRegistered(this.ctx.storage.sql, tenantId);
  }

  async placement(tenantId: string): Promise<Placement> {
    if (!isValidTenantId(tenantId)) throw new TypeError("tenantId is not a valid tenant id");
    return readPlacement(this.ctx.storage.sql, tenantId);
  }

  async setJurisdiction(
    tenantId: string,
    jurisdiction: Jurisdiction | null,
    now: number,
    context: AuditContext,
  ): Promise<JurisdictionChange> {
    if (!isValidTenantId(tenantId)) throw new TypeError("tenantId is not a valid tenant id");
    if (jurisdiction !== null && !isJurisdiction(jurisdiction)) throw new TypeError("jurisdiction: not a jurisdiction");
    const at = requireNow(now);
    const ctx = parseAuditContext(context);
    const sql = this.ctx.storage.sql;
    // The check, the change and its entry in one transaction: a tenant bound meanwhile is refused.
    return this.ctx.storage.transactionSync(() => {
      const change = writeJurisdiction(sql, tenantId, jurisdiction, at);
      if (change.ok && change.changed) {
        const target = { type: "tenant" as const, id: tenantId };
        appendAuditEntry(
          sql,
          auditEntry(tenantId, ctx, { action: "tenant.jurisdiction_set", target, details: { jurisdiction } }, newAuditId(), at),
          at,
        );
      }
      return change;
    });
  }

  async list(input: PageInput): Promise<Page<TenantEntry>> {
    const cursor = input.cursor == null ? null : requireString("cursor", input.cursor, Infinity);
    return listTenants(this.ctx.storage.sql, requirePageLimit(input.limit), cursor);
  }

  async recordAudit(entries: readonly AuditEntry[]): Promise<void> {
    if (!Array.isArray(entries)) throw new TypeError("entries: not a list");
    const parsed = entries.map((entry: AuditEntry) => parseAuditEntry(entry));
    // Only platform actions belong here; a tenant's own changes stay in its own log.
    if (parsed.some((entry) => !PLATFORM_ACTIONS.has(entry.action))) throw new TypeError("audit entry: not a platform action");
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      for (const entry of parsed) appendAuditEntry(this.ctx.storage.sql, entry, now);
    });
  }

  async listAuditLog(input: AuditListInput): Promise<Page<AuditEntry>> {
    return listAuditEntries(this.ctx.storage.sql, parseAuditListInput(input));
  }
}
