/**
 * The vault's SQL: credential rows by owner (`tenant`, or `end_user:<subject>`) and name. The
 * secrets are in `sealed`, under the key `key_id` names; nothing else in a row is secret.
 */
import { toIso } from "../shared/validate";
import type { Credential, CredentialType } from "./types";

export interface CredentialRow extends Record<string, SqlStorageValue> {
  owner: string;
  name: string;
  type: CredentialType;
  header: string;
  allowed_origins: string;
  expires_at: number | null;
  token_url: string | null;
  client_id: string | null;
  refreshable: number;
  refresh_failed: number;
  key_id: string;
  sealed: ArrayBuffer;
  created_at: number;
  updated_at: number;
}

/** Rows re-encrypted per step of the pass (each is one decrypt and one encrypt). */
export const RESEAL_BATCH = 50;

export const TENANT_OWNER = "tenant";
const END_USER_OWNER = "end_user:";

export function ownerOf(subject: string | null): string {
  return subject === null ? TENANT_OWNER : END_USER_OWNER + subject;
}

/** The additional data a row's secrets are sealed with: they open on this row only. */
export function sealContext(owner: string, name: string): string {
  return `${owner}\n${name}`;
}

export function getRow(sql: SqlStorage, owner: string, name: string): CredentialRow | null {
  return sql.exec<CredentialRow>(`SELECT * FROM credentials WHERE owner = ? AND name = ?`, owner, name).toArray()[0] ?? null;
}

export function listRows(sql: SqlStorage, owner: string): CredentialRow[] {
  return sql.exec<CredentialRow>(`SELECT * FROM credentials WHERE owner = ? ORDER BY name`, owner).toArray();
}

export function countRows(sql: SqlStorage, owner: string): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM credentials WHERE owner = ?`, owner).one().n;
}

export function writeRow(sql: SqlStorage, row: CredentialRow): void {
  sql.exec(
    `INSERT INTO credentials (owner, name, type, header, allowed_origins, expires_at, token_url, client_id, refreshable,
       refresh_failed, key_id, sealed, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (owner, name) DO UPDATE SET type = excluded.type, header = excluded.header,
       allowed_origins = excluded.allowed_origins, expires_at = excluded.expires_at, token_url = excluded.token_url,
       client_id = excluded.client_id, refreshable = excluded.refreshable, refresh_failed = excluded.refresh_failed,
       key_id = excluded.key_id, sealed = excluded.sealed, updated_at = excluded.updated_at`,
    row.owner,
    row.name,
    row.type,
    row.header,
    row.allowed_origins,
    row.expires_at,
    row.token_url,
    row.client_id,
    row.refreshable,
    row.refresh_failed,
    row.key_id,
    row.sealed,
    row.created_at,
    row.updated_at,
  );
}

export function deleteRow(sql: SqlStorage, owner: string, name: string): boolean {
  return sql.exec(`DELETE FROM credentials WHERE owner = ? AND name = ?`, owner, name).rowsWritten > 0;
}

/** Every credential of an end user goes (their erasure); answers how many. */
export function deleteOwner(sql: SqlStorage, owner: string): number {
  return sql.exec(`DELETE FROM credentials WHERE owner = ?`, owner).rowsWritten;
}

/**
 * New secrets for the row as it was read (`updated_at`): a put that came in meanwhile wins, and
 * the write is skipped. Answers whether it was written.
 */
export function replaceSecrets(
  sql: SqlStorage,
  row: Pick<CredentialRow, "owner" | "name" | "updated_at">,
  next: { key_id: string; sealed: Uint8Array; expires_at: number | null; refresh_failed: number; refreshable: number; now: number },
): boolean {
  return (
    sql.exec(
      `UPDATE credentials SET key_id = ?, sealed = ?, expires_at = ?, refresh_failed = ?, refreshable = ?, updated_at = ?
       WHERE owner = ? AND name = ? AND updated_at = ?`,
      next.key_id,
      next.sealed,
      next.expires_at,
      next.refresh_failed,
      next.refreshable,
      next.now,
      row.owner,
      row.name,
      row.updated_at,
    ).rowsWritten > 0
  );
}

export function markRefreshFailed(sql: SqlStorage, row: Pick<CredentialRow, "owner" | "name" | "updated_at">, now: number): boolean {
  return (
    sql.exec(
      `UPDATE credentials SET refresh_failed = 1, updated_at = ? WHERE owner = ? AND name = ? AND updated_at = ?`,
      now,
      row.owner,
      row.name,
      row.updated_at,
    ).rowsWritten > 0
  );
}

/** The next rows of the re-encryption pass after `after` (owner, name), under any key but `keyId`. */
export function staleRows(sql: SqlStorage, keyId: string, after: [string, string] | null): CredentialRow[] {
  const [owner, name] = after ?? ["", ""];
  return sql
    .exec<CredentialRow>(
      `SELECT * FROM credentials WHERE key_id != ? AND (owner > ? OR (owner = ? AND name > ?)) ORDER BY owner, name LIMIT ?`,
      keyId,
      owner,
      owner,
      name,
      RESEAL_BATCH,
    )
    .toArray();
}

export function countStale(sql: SqlStorage, keyId: string): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM credentials WHERE key_id != ?`, keyId).one().n;
}

/** The same sealed value moved under another key, unless the row changed since it was read. */
export function resealRow(sql: SqlStorage, row: CredentialRow, next: { key_id: string; sealed: Uint8Array }): boolean {
  return (
    sql.exec(
      `UPDATE credentials SET key_id = ?, sealed = ? WHERE owner = ? AND name = ? AND key_id = ? AND updated_at = ?`,
      next.key_id,
      next.sealed,
      row.owner,
      row.name,
      row.key_id,
      row.updated_at,
    ).rowsWritten > 0
  );
}

/** `expired`: an expiry passed that no refresh token can renew. */
export function toCredential(row: CredentialRow, now: number): Credential {
  const status =
    row.refresh_failed === 1
      ? "refresh_failed"
      : row.expires_at !== null && row.expires_at <= now && row.refreshable === 0
        ? "expired"
        : "ok";
  return {
    name: row.name,
    type: row.type,
    header: row.header,
    allowed_origins: JSON.parse(row.allowed_origins) as string[],
    expires_at: row.expires_at === null ? null : toIso(row.expires_at),
    updated_at: toIso(row.updated_at),
    status,
  };
}
