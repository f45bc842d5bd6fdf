/**
 * What the gateway remembers, per isolate, to keep unverified requests away from the tenants'
 * index objects: which client addresses (or, without a trusted one, which tenants' keys: see
 * `failureWindowKey`) are blocked after too many failed authentications,
 * which API key ids are known not to exist, and which were recently verified. Only the
 * counting is shared between isolates, through the Workers Rate Limiting binding; the rest is
 * memory that may be lost at any time, which only ever costs a lookup.
 */
import { parseApiKey } from "../auth/api-keys";
import type { KeyScreen } from "../auth/authenticate";
import { clientAddressKey } from "./client-address";
import { ExpiringMap } from "./expiring-map";

/** The window failures are counted in, and how long an address stays blocked. */
export const FAILURE_WINDOW_MS = 60_000;
/** Bounds every note below: a flood of distinct addresses or key ids evicts old notes, never grows memory. */
export const MAX_NOTES = 10_000;
/**
 * How long an unknown key id is refused without asking the tenant index. Key ids are 96 random
 * bits drawn when a key is created and only shown after it is stored, so an id can be looked up
 * before it exists only by guessing it: the note cannot hide a real key (and creating a key
 * through this isolate clears it anyway).
 */
export const UNKNOWN_KEY_TTL_MS = 5 * 60_000;
/** How long a verified key id may still be looked up from a blocked address. */
export const VERIFIED_KEY_TTL_MS = 10 * 60_000;
/**
 * How long the registry's word on a tenant is kept for legacy (untagged) API keys. A tenant is
 * never unregistered, so "known" is kept long; "unknown" shorter, since a tenant whose first
 * registration failed is registered on its next verified request.
 */
export const LEGACY_TENANT_KNOWN_TTL_MS = 10 * 60_000;
export const LEGACY_TENANT_UNKNOWN_TTL_MS = 60_000;

/** The part of the Rate Limiting binding used here. */
export interface FailureCounter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

interface FailureCount {
  count: number;
  windowEnds: number;
}

export class AuthGuard {
  readonly #blockedUntil = new ExpiringMap<number>(MAX_NOTES, FAILURE_WINDOW_MS);
  readonly #failures = new ExpiringMap<FailureCount>(MAX_NOTES, FAILURE_WINDOW_MS);
  readonly #unknownKeys = new ExpiringMap<true>(MAX_NOTES, UNKNOWN_KEY_TTL_MS);
  readonly #verifiedKeys = new ExpiringMap<true>(MAX_NOTES, VERIFIED_KEY_TTL_MS);
  readonly #legacyTenants = new ExpiringMap<boolean>(MAX_NOTES, LEGACY_TENANT_KNOWN_TTL_MS);

  /** Seconds until `address` may try again (rounded up), or 0 when it is not blocked. */
  blockedSeconds(address: string, now: number): number {
    const until = this.#blockedUntil.get(address, now);
    return until === undefined ? 0 : Math.max(1, Math.ceil((until - now) / 1000));
  }

  /**
   * Whether an API key may be looked up, decided without I/O. A key id known not to exist never
   * is. From a blocked address only a key id this isolate verified recently is: a backend that
   * shares its address with an attacker keeps working with the key it uses, while bogus ids
   * (random ones, which the unknown-key note alone could never catch) cost the index nothing.
   */
  screenApiKey(tenantId: string, keyId: string, addressBlocked: boolean, now: number): KeyScreen {
    const id = keyNoteId(tenantId, keyId);
    if (this.#unknownKeys.has(id, now)) return "known_unknown";
    if (addressBlocked && !this.#verifiedKeys.has(id, now)) return "address_blocked";
    return "look_up";
  }

  /**
   * Whether the tenant of a legacy API key is known to the registry: asked once (`ask`), then
   * remembered, so a flood of legacy-format keys costs the registry one read per tenant name
   * and minute at most, and never wakes a tenant's index.
   */
  async legacyTenantKnown(tenantId: string, now: number, ask: () => Promise<boolean>): Promise<boolean> {
    const noted = this.#legacyTenants.get(tenantId, now);
    if (noted !== undefined) return noted;
    const known = await ask();
    this.#legacyTenants.set(tenantId, known, now, now + (known ? LEGACY_TENANT_KNOWN_TTL_MS : LEGACY_TENANT_UNKNOWN_TTL_MS));
    return known;
  }

  /** The tenant index answered that this key does not exist. */
  noteUnknownKey(tenantId: string, keyId: string, now: number): void {
    this.#unknownKeys.set(keyNoteId(tenantId, keyId), true, now);
  }

  /** A key was created: it must not stay refused in this isolate, however unlikely the note. */
  forgetUnknownKey(tenantId: string, keyId: string): void {
    this.#unknownKeys.delete(keyNoteId(tenantId, keyId));
  }

  noteVerifiedKey(tenantId: string, keyId: string, now: number): void {
    this.#verifiedKeys.set(keyNoteId(tenantId, keyId), true, now);
  }

  /**
   * Counts one failed authentication from `address` and answers the seconds it is now blocked
   * for (0 while it may go on). Counted twice: here, exactly, against `perMinute` within the
   * isolate; and by the Rate Limiting binding, which sees every isolate of a Cloudflare location
   * and answers `success: false` once its own limit is passed. The binding is called only here,
   * after a failure, so honest traffic never pays for it; when it fails, the isolate's count
   * still holds.
   */
  async recordFailure(
    address: string,
    now: number,
    perMinute: number,
    counter: FailureCounter | undefined,
    onCounterError: (error: unknown) => void,
  ): Promise<number> {
    const current = this.#failures.get(address, now);
    const failures: FailureCount = current ?? { count: 0, windowEnds: now + FAILURE_WINDOW_MS };
    failures.count += 1;
    this.#failures.set(address, failures, now, failures.windowEnds);
    if (failures.count > perMinute) return this.#block(address, failures.windowEnds, now);

    if (counter === undefined) return 0;
    let allowed: boolean;
    try {
      ({ success: allowed } = await counter.limit({ key: address }));
    } catch (error) {
      onCounterError(error);
      return 0;
    }
    // The binding does not say when its window ends; a full window is the safe guess.
    return allowed ? 0 : this.#block(address, now + FAILURE_WINDOW_MS, now);
  }

  #block(address: string, until: number, now: number): number {
    this.#blockedUntil.set(address, until, now, until);
    return this.blockedSeconds(address, now);
  }
}

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * What a failed authentication is counted (and a block kept) under. With a client address the
 * deployment trusts: the address (its /64 for IPv6), one client whatever it presents. Without one
 * (a local runtime, where every client arrives from one address and any can claim another): the
 * tenant an API key names, so a forger blocks the unverified keys of the tenant it forges keys
 * for, never another tenant's. A key of the untagged legacy format proves nothing about its tenant
 * (checking it asks the registry), so all of them share one window: a forger naming a new tenant
 * each time is still counted, and a legacy key this gateway verified lately still stands. A
 * credential that names no tenant (a JWT, junk) is not counted: refusing it costs no object any
 * work, and a JWT that verifies is never blocked. Pure.
 */
export function failureWindowKey(address: string | null, authorization: string | null): string | null {
  const counted = clientAddressKey(address);
  if (counted !== null) return `ip:${counted}`;
  const credential = authorization === null ? undefined : BEARER.exec(authorization)?.[1];
  const key = credential === undefined ? null : parseApiKey(credential);
  if (key === null) return null;
  return key.signed === null ? "legacy-keys" : `tenant:${key.tenantId}`;
}

/** Tenant ids cannot contain a newline, so the pair cannot collide with another. */
function keyNoteId(tenantId: string, keyId: string): string {
  return `${tenantId}\n${keyId}`;
}

/** The isolate's one guard: module state on purpose, since it must outlive each request. */
export const authGuard = new AuthGuard();
