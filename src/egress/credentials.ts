/**
 * What egress needs of the credential vault: a named credential, looked up for the session's end
 * user (else the tenant's), as the one header to add to requests whose origin it allows. The
 * vault lives above this layer (`src/vault/`); the session's tools hand egress a
 * `CredentialSource` built over it, so the secret exists only in the request that carries it.
 */

/** A credential's name, as tools name it and the vault's routes take it. */
export const CREDENTIAL_NAME_PATTERN = /^[a-z0-9_-]{1,64}$/;

/** A credential ready to send: the header it fills and the origins it may go to. */
export interface EgressCredential {
  name: string;
  /** Whose it is: the session's end user's, or the tenant's when the end user has none. */
  owner: "end_user" | "tenant";
  /** The header's name, lower case (`authorization` for bearer and oauth2). */
  header: string;
  /** The header's value as sent (`Bearer …` for bearer and oauth2). Never stored, logged or shown. */
  value: string;
  /** Normalized origins (`https://api.example.com`); the header goes to no other. */
  allowedOrigins: readonly string[];
  /** An oauth2 credential with a refresh token: a 401 may be answered by `refresh`. */
  refreshable: boolean;
}

export const CREDENTIAL_PROBLEMS = ["credential_missing", "credential_refresh_failed", "vault_unavailable"] as const;
export type CredentialProblem = (typeof CREDENTIAL_PROBLEMS)[number];

export type CredentialLookup =
  | { ok: true; credential: EgressCredential }
  | { ok: false; code: CredentialProblem; name: string; owner: "end_user" | "tenant" | null; detail: string };

export interface CredentialSource {
  /** The credential named `name`, refreshed first when it is an expired oauth2 token. */
  get(name: string): Promise<CredentialLookup>;
  /**
   * After the origin answered 401 to `rejected` (the value sent): a refreshed credential, once
   * per credential across concurrent callers (a caller whose value was already replaced gets
   * the new one without a second refresh).
   */
  refresh(name: string, rejected: string): Promise<CredentialLookup>;
}

/**
 * What a session tells its backend (event `credential_required`, status webhook
 * `session.credential_required`) when a call could not use a credential: whose it must be and why.
 */
export interface CredentialRequired {
  credential: string;
  /** Who must connect it: the session's end user, or the tenant for a session no end user created. */
  owner: "end_user" | "tenant";
  /** The end user's subject, when `owner` is `end_user`. */
  subject?: string;
  code: CredentialProblem;
}
