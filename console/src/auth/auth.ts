/**
 * The console's credential for this tab. A pasted JWT is used as is until it expires; an API
 * key is exchanged for a 15-minute JWT (`POST /v1/auth/token`) and exchanged again shortly
 * before each expiry. What is kept where:
 * - the JWT in `sessionStorage`: it lives only as long as the tab, expires within minutes when
 *   it came from a key, and lets a reload keep the tab signed in;
 * - the API key in memory only, never in any storage: it is long-lived, and `sessionStorage`
 *   is written to disk for session restore and copied into duplicated tabs. After a reload the
 *   stored token is used until it expires, then the console asks to sign in again.
 */
import { createPlatformClient, expectData } from "@agent-platform/sdk";
import { type Claims, credentialKind, isExpired, readClaims, renewDue } from "./claims";

export const TOKEN_STORAGE_KEY = "agent-platform.console.token";

/** Why the console shows the sign-in form. */
export type SignedOutReason = "signed_out" | "expired" | "refused";

/** Thrown by `token()` when there is no usable credential; the app shows the sign-in form. */
export class SignInNeeded extends Error {
  override name = "SignInNeeded";
  constructor(readonly reason: SignedOutReason) {
    super("sign in again");
  }
}

export interface AuthState {
  signedIn: boolean;
  claims: Claims | null;
  /** Signed in with an API key: expiry is handled by exchanging the key again. */
  renewable: boolean;
  reason: SignedOutReason;
}

type Listener = (state: AuthState) => void;

export class Auth {
  #token: string | null = null;
  #claims: Claims | null = null;
  #apiKey: string | null = null;
  #renewing: Promise<string> | null = null;
  #reason: SignedOutReason = "signed_out";
  readonly #listeners = new Set<Listener>();

  constructor(
    private readonly baseUrl: string,
    private readonly storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null,
    private readonly now: () => number = Date.now,
  ) {
    const stored = storage?.getItem(TOKEN_STORAGE_KEY) ?? null;
    const claims = stored === null ? null : readClaims(stored);
    if (stored !== null && claims && !isExpired(claims.expiresAt, now())) {
      this.#token = stored;
      this.#claims = claims;
    } else if (stored !== null) {
      storage?.removeItem(TOKEN_STORAGE_KEY);
      this.#reason = "expired";
    }
  }

  get state(): AuthState {
    return { signedIn: this.#token !== null, claims: this.#claims, renewable: this.#apiKey !== null, reason: this.#reason };
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Signs in with a JWT or an API key; throws a readable Error when the input is neither or is refused. */
  async signIn(input: string): Promise<void> {
    const credential = input.trim();
    const kind = credentialKind(credential);
    if (kind === null) throw new Error("That is neither an API key (ak_…) nor a token (a JWT).");
    if (kind === "api_key") {
      this.#apiKey = credential;
      try {
        this.#accept(await this.#exchange(credential));
      } catch (error) {
        this.#apiKey = null;
        throw error;
      }
      return;
    }
    const claims = readClaims(credential);
    if (!claims) throw new Error("That token cannot be read: paste the whole JWT.");
    if (isExpired(claims.expiresAt, this.now())) throw new Error("That token has expired.");
    this.#apiKey = null;
    this.#accept(credential);
  }

  /** A current token: renewed first when it came from an API key and expires soon. */
  async token(): Promise<string> {
    const token = this.#token;
    if (token === null) throw new SignInNeeded(this.#reason);
    const expiresAt = this.#claims?.expiresAt ?? null;
    if (this.#apiKey !== null && renewDue(expiresAt, this.now())) return this.renew();
    if (isExpired(expiresAt, this.now())) {
      this.expire("expired");
      throw new SignInNeeded("expired");
    }
    return token;
  }

  /** Exchanges the API key again (one exchange at a time); without a key, signs out as expired. */
  renew(): Promise<string> {
    const apiKey = this.#apiKey;
    if (apiKey === null) {
      this.expire("expired");
      return Promise.reject(new SignInNeeded("expired"));
    }
    this.#renewing ??= this.#exchange(apiKey)
      .then((token) => {
        this.#accept(token);
        return token;
      })
      .catch((error: unknown) => {
        // A key that no longer exchanges was revoked or expired: sign in again.
        this.expire("refused");
        throw error;
      })
      .finally(() => {
        this.#renewing = null;
      });
    return this.#renewing;
  }

  /** The platform refused the credential (or it expired): forget it and show the sign-in form. */
  expire(reason: SignedOutReason): void {
    this.#clear(reason);
  }

  signOut(): void {
    this.#clear("signed_out");
  }

  #accept(token: string): void {
    this.#token = token;
    this.#claims = readClaims(token);
    this.storage?.setItem(TOKEN_STORAGE_KEY, token);
    this.#notify();
  }

  #clear(reason: SignedOutReason): void {
    const wasSignedIn = this.#token !== null;
    this.#token = null;
    this.#claims = null;
    this.#apiKey = null;
    this.#reason = reason;
    this.storage?.removeItem(TOKEN_STORAGE_KEY);
    if (wasSignedIn) this.#notify();
  }

  async #exchange(apiKey: string): Promise<string> {
    const client = createPlatformClient({ baseUrl: this.baseUrl, credential: apiKey });
    const answer = await expectData(client.POST("/v1/auth/token", { cache: "no-store" }));
    return answer.access_token;
  }

  #notify(): void {
    const state = this.state;
    for (const listener of this.#listeners) listener(state);
  }
}
