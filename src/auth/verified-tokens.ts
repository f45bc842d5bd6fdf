/**
 * JWTs this isolate has verified, so a client that sends the same token with every request
 * pays for its signature check once. Only what a token proves by its signature is kept (the
 * principal its claims name), and only until its `exp`, or `MAX_KEPT_MS` at most: from then on
 * the token is checked afresh, and refused once it has expired, as any token is. Everything
 * that can change while a token lives is still read on every request by the gateway: a
 * tenant's suspension and rate limits, and, for a token exchanged from an API key, that key's
 * revocation.
 *
 * The key is the whole token, never a part of it: a token that differs in any character is not
 * the one verified. Bounded: past `MAX_TOKENS` the oldest entries go first.
 */
import type { Principal } from "./principal";

export const MAX_TOKENS = 1_000;
export const MAX_KEPT_MS = 5 * 60_000;

interface Kept {
  /** Frozen: every request that finds it shares it. */
  principal: Principal;
  /** When it was verified (epoch ms): the checks that depend on the time passed then and still pass later. */
  since: number;
  /** Epoch ms from which the entry is not used. */
  until: number;
}

export class VerifiedTokens {
  /** In insertion order, which is age order: a Map iterates that way. */
  readonly #tokens = new Map<string, Kept>();

  /** The principal of a token verified before and not yet expired, or null. */
  get(token: string, now: number): Principal | null {
    const kept = this.#tokens.get(token);
    if (!kept) return null;
    if (now >= kept.until) {
      this.#tokens.delete(token);
      return null;
    }
    return now >= kept.since ? kept.principal : null;
  }

  /** Remembers a token just verified; one without an expiry is not kept. */
  put(token: string, principal: Principal, now: number): void {
    if (principal.expiresAt === undefined || principal.expiresAt <= now) return;
    this.#tokens.delete(token);
    const frozen = Object.freeze({ ...principal, scopes: Object.freeze([...principal.scopes]) }) as Principal;
    this.#tokens.set(token, { principal: frozen, since: now, until: Math.min(principal.expiresAt, now + MAX_KEPT_MS) });
    while (this.#tokens.size > MAX_TOKENS) {
      const oldest = this.#tokens.keys().next().value as string;
      this.#tokens.delete(oldest);
    }
  }

  get size(): number {
    return this.#tokens.size;
  }
}
