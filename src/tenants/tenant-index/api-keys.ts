/** The tenant index's API-key calls after admission: create, list, touch, revoke, and the streams a key opened. */
import type { AuditContext } from "../../audit/types";
import type { Page } from "../../session-config/types";
import * as apiKeys from "../api-key-store";
import {
  closeStreamsOf,
  countOpenStreams,
  forgetStreams,
  noteStream,
  parseNoteStream,
  recountDue,
  recountOpenStreams,
  recountRetryAfterSeconds,
  sessionsStreamingWithKey,
} from "../event-streams";
import type * as T from "../types";
import { optionalCursor, requireNow, requirePageLimit, requireString } from "../../shared/validate";
import type { IndexHost } from "./host";
import { raised } from "../budget-waits";
import { wakeBudgetWaitersEverywhere } from "./shard-spend";

export function touchApiKey(host: IndexHost, keyId: string, now: number): boolean {
  return apiKeys.touchApiKey(host.sql, requireString("keyId", keyId), requireNow(now));
}

export function createApiKey(host: IndexHost, tenantId: string, record: apiKeys.ApiKeyRecord, by?: AuditContext): void {
  host.transaction(() => {
    apiKeys.insertApiKey(host.sql, tenantId, record);
    host.audit(by, {
      action: "api_key.created",
      target: { type: "api_key", id: record.key_id },
      details: { name: record.name, scopes: record.scopes, expires_at: record.expires_at },
    });
  });
}

export function listApiKeys(host: IndexHost, tenantId: string, input: T.PageInput): Page<apiKeys.ApiKeyListing> {
  return apiKeys.listApiKeys(host.sql, tenantId, requirePageLimit(input.limit), optionalCursor(input.cursor));
}

/**
 * A key's daily token budget changed (audited with both values); the sessions waiting on it are
 * told before the answer, and each checks every budget again as it goes on.
 */
export async function setApiKeyBudget(
  host: IndexHost,
  tenantId: string,
  keyId: string,
  maxTokensPerDay: number | null,
  by?: AuditContext,
): Promise<boolean> {
  const id = requireString("keyId", keyId);
  const before = apiKeys.keyTokenBudget(host.sql, id);
  const found = host.transaction(() => {
    const updated = apiKeys.setKeyTokenBudget(host.sql, id, maxTokensPerDay);
    if (updated && before !== maxTokensPerDay)
      host.audit(by, {
        action: "api_key.updated",
        target: { type: "api_key", id },
        details: { before: { max_tokens_per_day: before }, after: { max_tokens_per_day: maxTokensPerDay } },
      });
    return updated;
  });
  if (found && raised(before, maxTokensPerDay)) await wakeBudgetWaitersEverywhere(host, tenantId, ["key_tokens"], id, null);
  return found;
}

/** The streams are closed before the answer, so a revoked key's watchers are gone when it returns. */
export async function revokeApiKey(host: IndexHost, tenantId: string, keyId: string, now: number, by?: AuditContext): Promise<boolean> {
  const id = requireString("keyId", keyId);
  const at = requireNow(now);
  const found = host.transaction(() => {
    const result = apiKeys.revokeApiKey(host.sql, id, at);
    // A second revocation changes nothing, and records nothing.
    if (result.revoked) host.audit(by, { action: "api_key.revoked", target: { type: "api_key", id } });
    return result.found;
  });
  if (found) await closeStreamsOf(host.env, tenantId, sessionsStreamingWithKey(host.sql, id, now), { keyId: id }, "credentials");
  return found;
}

/**
 * At the tenant's cap the rows are recounted first (streams that went without telling are
 * dropped), then everything from the key's check to the note runs in one turn, so no revocation,
 * suspension or other stream falls between them.
 */
export async function noteEventStream(host: IndexHost, tenantId: string, input: T.NoteStreamInput): Promise<T.StreamNote> {
  const checked = parseNoteStream(input);
  const max = () => host.config().limits.max_streams_per_tenant;
  if (countOpenStreams(host.sql, checked.now) >= max() && recountDue(host.kv, checked.now)) {
    await recountOpenStreams(host.env, tenantId, host.sql, host.kv, checked.now);
  }
  const key = checked.keyId === null ? null : apiKeys.findApiKey(host.sql, tenantId, checked.keyId);
  return noteStream(host.sql, checked, key, host.config().suspended, max(), recountRetryAfterSeconds(host.kv, checked.now));
}

/** The session object's streams that closed: they no longer count. */
export function forgetEventStreams(host: IndexHost, streamIds: string[]): number {
  return forgetStreams(host.sql, streamIds);
}
