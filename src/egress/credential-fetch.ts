/**
 * A request sent with a vault credential: looked up first, and after a 401 to a request that
 * carried a refreshable one, refreshed and sent again once. Shared by the webhook tool's guarded
 * fetch and the MCP transport's fetch, so both follow the same rule.
 */
import type { CredentialLookup, CredentialProblem, CredentialSource, EgressCredential } from "./credentials";

/** The credential a tool names and where to look it up. */
export interface CredentialAuth {
  name: string;
  source: CredentialSource;
}

export type CredentialFailure = Extract<CredentialLookup, { ok: false }>;

/** An answer of `send`: its status, and whether the credential went with it. */
export interface CredentialSent {
  status: number;
  credentialSent: boolean;
}

export type CredentialAttempt<R> = { ok: true; result: R } | CredentialFailure;

/**
 * `send` with the credential `auth` names (or none when the tool names none). A 401 to a request
 * that carried a refreshable credential refreshes it (the source shares one refresh among
 * concurrent callers) and sends once more; a second 401 is the answer, the first is `discard`ed.
 */
export async function sendWithCredential<R>(
  auth: CredentialAuth | undefined,
  send: (credential: EgressCredential | undefined) => Promise<R>,
  answer: (result: R) => CredentialSent | null,
  /** Releases a first answer that is set aside for the resend (an unread body holds its connection). */
  discard?: (result: R) => Promise<void>,
): Promise<CredentialAttempt<R>> {
  if (!auth) return { ok: true, result: await send(undefined) };
  const lookup = await lookUp(() => auth.source.get(auth.name), auth.name);
  if (!lookup.ok) return lookup;
  const first = await send(lookup.credential);
  const sent = answer(first);
  if (!sent || sent.status !== 401 || !sent.credentialSent || !lookup.credential.refreshable) return { ok: true, result: first };
  await discard?.(first);
  const refreshed = await lookUp(() => auth.source.refresh(auth.name, lookup.credential.value), auth.name);
  if (!refreshed.ok) return refreshed;
  return { ok: true, result: await send(refreshed.credential) };
}

/** The source of a session that has no vault to ask: every credential is unavailable. */
export const NO_VAULT: CredentialSource = {
  get: async (name) => ({ ok: false, code: "vault_unavailable", name, owner: null, detail: "no credential vault is configured" }),
  refresh: async (name) => ({ ok: false, code: "vault_unavailable", name, owner: null, detail: "no credential vault is configured" }),
};

/** A source that throws (the vault cannot be reached) is a `vault_unavailable` failure, never the thrown text. */
async function lookUp(ask: () => Promise<CredentialLookup>, name: string): Promise<CredentialLookup> {
  try {
    return await ask();
  } catch {
    return { ok: false, code: "vault_unavailable", name, owner: null, detail: "the credential vault could not be reached" };
  }
}

/** The sentence a call's result carries for a credential that could not be used: code, name and what to do. */
export function describeCredentialFailure(failure: Pick<CredentialFailure, "code" | "name" | "detail">): string {
  return `${failure.code}: ${ACTIONS[failure.code](failure.name)}${failure.detail ? ` (${failure.detail})` : ""}`;
}

const ACTIONS: Record<CredentialProblem, (name: string) => string> = {
  credential_missing: (name) => `the credential "${name}" is not connected; it must be connected before this tool can be used`,
  // The detail says which: refused (the user must reconnect it) or failing for now (try later).
  credential_refresh_failed: (name) => `the credential "${name}" could not be refreshed`,
  vault_unavailable: (name) => `the credential "${name}" could not be read from the vault`,
};

/** Thrown by a transport's fetch (the MCP SDK's) for a credential that cannot be used; its message holds no secret. */
export class CredentialUnavailable extends Error {
  override name = "CredentialUnavailable";
  constructor(readonly failure: CredentialFailure) {
    super(describeCredentialFailure(failure));
  }
}
