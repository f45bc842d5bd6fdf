/** The tenant index's API-key calls after admission: create, list, touch, revoke, and the streams a key opened. */
import type { Page } from "../../sessions/types";
import * as apiKeys from "../api-key-store";
import { closeStreamsOf, noteStream, parseNoteStream, sessionsStreamingWithKey } from "../event-streams";
import type * as T from "../types";
import { optionalCursor, requireNow, requirePageLimit, requireString } from "../validate";
import type { IndexHost } from "./host";

export function touchApiKey(host: IndexHost, keyId: string, now: number): boolean {
  return apiKeys.touchApiKey(host.sql, requireString("keyId", keyId), requireNow(now));
}

export function createApiKey(host: IndexHost, tenantId: string, record: apiKeys.ApiKeyRecord): void {
  host.transaction(() => apiKeys.insertApiKey(host.sql, tenantId, record));
}

export function listApiKeys(host: IndexHost, tenantId: string, input: T.PageInput): Page<apiKeys.ApiKeyListing> {
  return apiKeys.listApiKeys(host.sql, tenantId, requirePageLimit(input.limit), optionalCursor(input.cursor));
}

/** The streams are closed before the answer, so a revoked key's watchers are gone when it returns. */
export async function revokeApiKey(host: IndexHost, tenantId: string, keyId: string, now: number): Promise<boolean> {
  const id = requireString("keyId", keyId);
  const found = apiKeys.revokeApiKey(host.sql, id, requireNow(now));
  if (found) await closeStreamsOf(host.env, tenantId, sessionsStreamingWithKey(host.sql, id, now), { keyId: id }, "credentials");
  return found;
}

/** The object runs one call at a time, so no revocation or suspension falls between the check and the note. */
export function noteEventStream(host: IndexHost, tenantId: string, input: T.NoteStreamInput): T.StreamNote {
  const checked = parseNoteStream(input);
  const key = checked.keyId === null ? null : apiKeys.findApiKey(host.sql, tenantId, checked.keyId);
  return noteStream(host.sql, checked, key, host.config().suspended);
}
