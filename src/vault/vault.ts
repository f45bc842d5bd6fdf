/**
 * The Vault Durable Object, one per tenant: the tenant's credentials and its end users', their
 * secrets sealed under `VAULT_KEYS` (keys.ts), looked up at egress and refreshed here, one
 * refresh per credential at a time. Storage: storage.md; what each call answers: `VaultRpc`.
 */
import { DurableObject } from "cloudflare:workers";
import type { CredentialLookup } from "../egress/credentials";
import { purgeStorage, storageFootprint, type StorageFootprint } from "../storage/object-storage";
import { AlarmClock } from "../storage/alarm-clock";
import { migrate } from "../storage/migrations";
import { TenantBinding } from "../tenants/tenant-binding";
import { requireNow, requireString } from "../shared/validate";
import { loadConfig } from "../config";
import { log } from "../log";
import { parseAuditContext } from "../audit/entry";
import { type AuditOutbox, tenantAuditOutbox } from "../audit/outbox";
import type { AuditChange, AuditContext } from "../audit/types";
import { loadVaultKeys, open, seal, type VaultKey } from "./keys";
import { VAULT_MIGRATIONS } from "./migrations";
import { requestTokens } from "./refresh";
import { checkPut, egressCredential, lookupFailure, ownerKind, requireName, requireSubject } from "./checks";
import type { VaultRpc } from "./rpc";
import * as store from "./store";
import type { Credential, CredentialKey, CredentialSecrets, PutCredential, ResealProgress, VaultResult } from "./types";

const UNAVAILABLE = { ok: false, reason: "vault_unavailable" } as const;
const NOT_FOUND = { ok: false, reason: "credential_not_found" } as const;
/** Said of a credential whose refresh token the endpoint refused; a passing failure says to try later instead. */
const REFUSED_REFRESH = "the token endpoint refused its refresh token; the user must reconnect it";
/** An oauth2 token this close to its expiry is refreshed before use, so it does not expire on the way. */
export const EXPIRY_MARGIN_MS = 30_000;
const RESEAL_CURSOR_KEY = "reseal_after";

export class Vault extends DurableObject<Cloudflare.Env> implements VaultRpc {
  readonly #alarms: AlarmClock;
  #binding: TenantBinding;
  #migrated = false;
  readonly #audit: AuditOutbox;
  /** Loaded once per instance: a change of the secret restarts the object. */
  #keys: Promise<VaultKey[] | null> | null = null;
  /** The refresh under way per credential (owner and name): concurrent callers share it. */
  readonly #refreshing = new Map<string, Promise<CredentialLookup>>();

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#alarms = new AlarmClock(ctx.storage);
    this.#binding = new TenantBinding(ctx.storage.kv, async () => undefined);
    this.#audit = tenantAuditOutbox(ctx.storage, env, () => this.#binding.tenantId ?? null, this.#alarms);
    if (this.#binding.bound) {
      this.#migrate();
      // A rotation (or an owed audit entry) is picked up on the first wake after the deploy.
      void ctx.blockConcurrencyWhile(() => this.#syncAlarm());
    }
  }

  async purge(tenantId: string): Promise<void> {
    if (!this.#peek(tenantId)) return;
    this.#refreshing.clear();
    await purgeStorage(this.ctx.storage);
    this.#binding = new TenantBinding(this.ctx.storage.kv, async () => undefined);
    this.#migrated = false;
  }

  async footprint(): Promise<StorageFootprint> {
    return storageFootprint(this.ctx.storage);
  }

  async put(tenantId: string, input: PutCredential, by?: AuditContext): Promise<VaultResult<Credential>> {
    const checked = checkPut(input);
    const context = parseAuditContext(by);
    const keys = await this.#loadKeys();
    if (!keys) return UNAVAILABLE;
    await this.#binding.enter(tenantId, checked.now);
    if (!this.#migrated) this.#migrate();
    const owner = store.ownerOf(checked.subject);
    const sealed = await seal(keys, JSON.stringify(checked.secrets), store.sealContext(owner, checked.name));
    const result = this.ctx.storage.transactionSync((): VaultResult<Credential> => {
      const previous = store.getRow(this.#sql, owner, checked.name);
      if (!previous && store.countRows(this.#sql, owner) >= checked.max)
        return { ok: false, reason: "limit_reached", max: checked.max, of: checked.subject === null ? "tenant" : "end_user" };
      const row: store.CredentialRow = {
        owner,
        name: checked.name,
        type: checked.type,
        header: checked.header,
        allowed_origins: JSON.stringify(checked.allowedOrigins),
        expires_at: checked.expiresAt,
        token_url: checked.tokenUrl,
        client_id: checked.clientId,
        refreshable: checked.secrets.refresh_token !== undefined && checked.tokenUrl !== null ? 1 : 0,
        refresh_failed: 0,
        key_id: sealed.key_id,
        sealed: sealed.sealed as unknown as ArrayBuffer,
        created_at: previous?.created_at ?? checked.now,
        // Strictly later than the row it replaces: a refresh under way compares it before writing.
        updated_at: Math.max(checked.now, (previous?.updated_at ?? 0) + 1),
      };
      store.writeRow(this.#sql, row);
      this.#record(tenantId, context, "credential.put", row, { type: row.type, header: row.header });
      return { ok: true, value: store.toCredential(row, checked.now) };
    });
    if (result.ok) await this.#audit.flush();
    return result;
  }

  async get(tenantId: string, key: CredentialKey, now: number): Promise<VaultResult<Credential>> {
    const owner = store.ownerOf(requireSubject(key.subject));
    const name = requireName(key.name);
    requireNow(now);
    if (!(await this.#loadKeys())) return UNAVAILABLE;
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const row = store.getRow(this.#sql, owner, name);
    return row ? { ok: true, value: store.toCredential(row, now) } : NOT_FOUND;
  }

  async list(tenantId: string, subject: string | null, now: number): Promise<VaultResult<Credential[]>> {
    const owner = store.ownerOf(requireSubject(subject));
    requireNow(now);
    if (!(await this.#loadKeys())) return UNAVAILABLE;
    if (!this.#peek(tenantId)) return { ok: true, value: [] };
    return { ok: true, value: store.listRows(this.#sql, owner).map((row) => store.toCredential(row, now)) };
  }

  async remove(tenantId: string, key: CredentialKey, by?: AuditContext): Promise<VaultResult<null>> {
    const owner = store.ownerOf(requireSubject(key.subject));
    const name = requireName(key.name);
    const context = parseAuditContext(by);
    if (!(await this.#loadKeys())) return UNAVAILABLE;
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const deleted = this.ctx.storage.transactionSync(() => {
      const row = store.getRow(this.#sql, owner, name);
      if (!row) return false;
      store.deleteRow(this.#sql, owner, name);
      this.#record(tenantId, context, "credential.deleted", row);
      return true;
    });
    if (!deleted) return NOT_FOUND;
    await this.#audit.flush();
    return { ok: true, value: null };
  }

  async eraseEndUser(tenantId: string, subject: string, by?: AuditContext): Promise<number> {
    const owner = store.ownerOf(requireSubject(subject));
    const context = parseAuditContext(by);
    if (!this.#peek(tenantId)) return 0;
    const rows = store.listRows(this.#sql, owner);
    if (rows.length === 0) return 0;
    this.ctx.storage.transactionSync(() => {
      store.deleteOwner(this.#sql, owner);
      for (const row of rows) this.#record(tenantId, context, "credential.deleted", row);
    });
    await this.#audit.flush();
    return rows.length;
  }

  async obtain(tenantId: string, input: { subject: string | null; name: string }): Promise<CredentialLookup> {
    const subject = requireSubject(input.subject);
    const name = requireName(input.name);
    const keys = await this.#loadKeys();
    if (!keys) return lookupFailure("vault_unavailable", name, null);
    if (!this.#peek(tenantId)) return lookupFailure("credential_missing", name, null);
    const row =
      (subject !== null ? store.getRow(this.#sql, store.ownerOf(subject), name) : null) ??
      store.getRow(this.#sql, store.TENANT_OWNER, name);
    if (!row) return lookupFailure("credential_missing", name, null);
    return this.#lookup(tenantId, keys, row, null);
  }

  async refresh(tenantId: string, input: { subject: string | null; name: string; rejected: string }): Promise<CredentialLookup> {
    const subject = requireSubject(input.subject);
    const name = requireName(input.name);
    const rejected = requireString("rejected", input.rejected, 4 * 8 * 1024);
    const keys = await this.#loadKeys();
    if (!keys) return lookupFailure("vault_unavailable", name, null);
    if (!this.#peek(tenantId)) return lookupFailure("credential_missing", name, null);
    const row =
      (subject !== null ? store.getRow(this.#sql, store.ownerOf(subject), name) : null) ??
      store.getRow(this.#sql, store.TENANT_OWNER, name);
    if (!row) return lookupFailure("credential_missing", name, null);
    return this.#lookup(tenantId, keys, row, rejected);
  }

  async reseal(tenantId: string): Promise<VaultResult<ResealProgress>> {
    const keys = await this.#loadKeys();
    if (!keys) return UNAVAILABLE;
    const total: ResealProgress = { resealed: 0, remaining: 0, unreadable: 0 };
    if (!this.#peek(tenantId)) return { ok: true, value: total };
    for (;;) {
      const step = await this.#resealStep(keys);
      total.resealed += step.resealed;
      total.unreadable += step.unreadable;
      if (step.done) break;
    }
    total.remaining = store.countStale(this.#sql, keys[0]!.id);
    return { ok: true, value: total };
  }

  override async alarm(): Promise<void> {
    if (!this.#migrated) return;
    await this.#audit.flush();
    const keys = await this.#loadKeys();
    const more = keys ? !(await this.#resealStep(keys)).done : false;
    const retry = this.#audit.retryAt(Date.now());
    await this.#alarms.sync(more ? Date.now() + 1 : retry);
  }

  // ---- private helpers (not reachable over RPC) ------------------------------------------

  /**
   * The row's credential for egress, refreshed first when it is stale: expired (`rejected`
   * null) or still holding the value the origin refused.
   */
  #lookup(tenantId: string, keys: VaultKey[], row: store.CredentialRow, rejected: string | null): Promise<CredentialLookup> {
    const id = store.sealContext(row.owner, row.name);
    const under = this.#refreshing.get(id);
    if (under) return under;
    if (row.refresh_failed === 1)
      return Promise.resolve(lookupFailure("credential_refresh_failed", row.name, ownerKind(row.owner), REFUSED_REFRESH));
    const expired = row.expires_at !== null && row.expires_at <= Date.now() + EXPIRY_MARGIN_MS;
    if (rejected === null && !expired) return this.#current(keys, row, null, expired);
    // Recorded before the first await (opening the secrets), so whoever comes meanwhile joins
    // this one rather than sending a second, possibly rotated-away, refresh token.
    const flight = this.#current(keys, row, rejected, expired, tenantId).finally(() => this.#refreshing.delete(id));
    this.#refreshing.set(id, flight);
    return flight;
  }

  /** The row's secrets opened, and refreshed (given `tenantId`) when stale. */
  async #current(
    keys: VaultKey[],
    row: store.CredentialRow,
    rejected: string | null,
    expired: boolean,
    tenantId?: string,
  ): Promise<CredentialLookup> {
    const owner = ownerKind(row.owner);
    const secrets = await this.#open(keys, row);
    if (!secrets) return lookupFailure("credential_missing", row.name, owner, "it cannot be read with the vault's keys; connect it again");
    const credential = egressCredential(row, secrets);
    if (tenantId === undefined || (rejected === null ? !expired : credential.value !== rejected)) return { ok: true, credential };
    if (credential.refreshable !== true)
      return lookupFailure(
        "credential_missing",
        row.name,
        owner,
        expired ? "it has expired; connect it again" : "the origin refused it; connect it again",
      );
    return this.#refreshRow(tenantId, keys, row, secrets);
  }

  async #refreshRow(tenantId: string, keys: VaultKey[], row: store.CredentialRow, secrets: CredentialSecrets): Promise<CredentialLookup> {
    const owner = ownerKind(row.owner);
    const answer = await requestTokens(
      {
        tokenUrl: row.token_url!,
        refreshToken: secrets.refresh_token!,
        clientId: row.client_id,
        clientSecret: secrets.client_secret ?? null,
      },
      { allowPrivateUrls: loadConfig(this.env).allowPrivateUrls, now: () => Date.now() },
    );
    const now = Date.now();
    if (!answer.ok) {
      log("warn", "credential_refresh_failed", {
        tenant_id: tenantId,
        credential: row.name,
        owner,
        permanent: answer.permanent,
        detail: answer.detail,
      });
      if (!answer.permanent) return lookupFailure("credential_refresh_failed", row.name, owner, `${answer.detail}; try again later`);
      const marked = this.ctx.storage.transactionSync(() => {
        if (!store.markRefreshFailed(this.#sql, row, now)) return false;
        this.#record(tenantId, undefined, "credential.refresh_failed", row, { reason: answer.detail });
        return true;
      });
      if (marked) await this.#audit.flush();
      return lookupFailure("credential_refresh_failed", row.name, owner, REFUSED_REFRESH);
    }
    const next: CredentialSecrets = { ...secrets, access_token: answer.accessToken };
    if (answer.refreshToken !== null) next.refresh_token = answer.refreshToken;
    const sealed = await seal(keys, JSON.stringify(next), store.sealContext(row.owner, row.name));
    const written = store.replaceSecrets(this.#sql, row, {
      ...sealed,
      expires_at: answer.expiresAt,
      refresh_failed: 0,
      refreshable: 1,
      now,
    });
    if (!written) {
      // Connected again while the endpoint answered: the new connection wins.
      const current = store.getRow(this.#sql, row.owner, row.name);
      const opened = current && current.refresh_failed === 0 ? await this.#open(keys, current) : null;
      return current && opened
        ? { ok: true, credential: egressCredential(current, opened) }
        : lookupFailure("credential_missing", row.name, owner);
    }
    return { ok: true, credential: egressCredential(row, next) };
  }

  /** One step of the re-encryption pass, from where the last one stopped. */
  async #resealStep(keys: VaultKey[]): Promise<{ resealed: number; unreadable: number; done: boolean }> {
    const first = keys[0]!;
    const after = this.ctx.storage.kv.get<[string, string]>(RESEAL_CURSOR_KEY) ?? null;
    const rows = store.staleRows(this.#sql, first.id, after);
    let resealed = 0;
    let unreadable = 0;
    for (const row of rows) {
      const context = store.sealContext(row.owner, row.name);
      const plain = await open(keys, { key_id: row.key_id, sealed: new Uint8Array(row.sealed) }, context);
      if (plain === null) {
        unreadable++;
        continue;
      }
      if (store.resealRow(this.#sql, row, await seal(keys, plain, context))) resealed++;
    }
    const done = rows.length < store.RESEAL_BATCH;
    if (done) this.ctx.storage.kv.delete(RESEAL_CURSOR_KEY);
    else this.ctx.storage.kv.put(RESEAL_CURSOR_KEY, [rows.at(-1)!.owner, rows.at(-1)!.name]);
    if (unreadable > 0) log("error", "vault_rows_unreadable", { tenant_id: this.#binding.tenantId, rows: unreadable });
    return { resealed, unreadable, done };
  }

  async #open(keys: VaultKey[], row: store.CredentialRow): Promise<CredentialSecrets | null> {
    const plain = await open(keys, { key_id: row.key_id, sealed: new Uint8Array(row.sealed) }, store.sealContext(row.owner, row.name));
    if (plain === null) {
      log("error", "credential_unreadable", { tenant_id: this.#binding.tenantId, credential: row.name, key_id: row.key_id });
      return null;
    }
    return JSON.parse(plain) as CredentialSecrets;
  }

  /** Names and origins, never a value. */
  #record(tenantId: string, context: AuditContext | undefined, action: AuditChange["action"], row: store.CredentialRow, extra = {}): void {
    const owner = ownerKind(row.owner);
    const details = { name: row.name, owner, ...(owner === "end_user" ? { subject: row.owner.slice("end_user:".length) } : {}) };
    const change = { action, target: { type: "credential", id: `${row.owner}/${row.name}` } };
    this.#audit.record(
      tenantId,
      context,
      { ...change, details: { ...details, allowed_origins: JSON.parse(row.allowed_origins), ...extra } },
      Date.now(),
    );
  }

  #loadKeys(): Promise<VaultKey[] | null> {
    this.#keys ??= loadVaultKeys(this.env.VAULT_KEYS).then((result) => {
      if (result.ok) return result.keys;
      log(this.env.VAULT_KEYS ? "error" : "warn", "vault_unavailable", { error: result.error });
      return null;
    });
    return this.#keys;
  }

  /** Wakes now when rows wait for re-encryption, else when an audit entry is owed. */
  async #syncAlarm(): Promise<void> {
    const keys = await this.#loadKeys();
    const stale = keys ? store.countStale(this.#sql, keys[0]!.id) > 0 : false;
    await this.#alarms.sync(stale ? Date.now() : this.#audit.retryAt(Date.now()));
  }

  get #sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  #peek(tenantId: string): boolean {
    return this.#binding.peek(tenantId) && this.#migrated;
  }

  #migrate(): void {
    migrate(this.ctx.storage, VAULT_MIGRATIONS);
    this.#migrated = true;
  }
}
