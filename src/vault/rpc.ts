/**
 * What a tenant's vault answers over RPC: the interface its namespace is typed by (src/env.ts),
 * called by the gateway's routes and, at egress, by sessions' tools. No answer carries a secret
 * but `obtain` and `refresh`, whose credential goes into the one request that needs it.
 */
import type { CredentialLookup } from "../egress/credentials";
import type { StorageFootprint } from "../storage/object-storage";
import type { AuditContext } from "../audit/types";
import type { Credential, CredentialKey, PutCredential, ResealProgress, VaultResult } from "./types";

export interface VaultRpc {
  /** The tenant was deleted: everything this object stored goes; harmless when done already. */
  purge(tenantId: string): Promise<void>;
  /** What this object's storage holds; reads only. */
  footprint(): Promise<StorageFootprint>;
  /** Writes (or replaces) the credential; `limit_reached` for a new one past its owner's limit. */
  put(tenantId: string, input: PutCredential, by?: AuditContext): Promise<VaultResult<Credential>>;
  get(tenantId: string, key: CredentialKey, now: number): Promise<VaultResult<Credential>>;
  /** The owner's credentials (the tenant's when `subject` is null), by name. */
  list(tenantId: string, subject: string | null, now: number): Promise<VaultResult<Credential[]>>;
  remove(tenantId: string, key: CredentialKey, by?: AuditContext): Promise<VaultResult<null>>;
  /** Every credential of the end user goes (their erasure); answers how many. Needs no key. */
  eraseEndUser(tenantId: string, subject: string, by?: AuditContext): Promise<number>;
  /**
   * At egress: the end user's credential named `name`, else the tenant's (`subject` null: the
   * tenant's only), an expired oauth2 token refreshed first.
   */
  obtain(tenantId: string, input: { subject: string | null; name: string }): Promise<CredentialLookup>;
  /**
   * At egress, after the origin answered 401 to `rejected` (the header's value as sent): the
   * credential refreshed, one refresh per credential across concurrent callers; a caller whose
   * value was already replaced gets the new one at once.
   */
  refresh(tenantId: string, input: { subject: string | null; name: string; rejected: string }): Promise<CredentialLookup>;
  /** Runs the re-encryption pass to its end (the alarm runs it in steps after a rotation). */
  reseal(tenantId: string): Promise<VaultResult<ResealProgress>>;
}

/** The binding whose stubs offer this interface (src/env.ts). */
declare module "../env" {
  interface ObjectRpcs {
    VAULT: VaultRpc;
  }
}
