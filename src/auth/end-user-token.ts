/**
 * End-user tokens (`POST /v1/auth/end-user-token`): a backend holding `end_users:issue` mints a
 * short-lived platform JWT for one of its users, principal `end_user:<subject>`, with at most
 * the caller's scopes and at most an end user's. And the one revocation rule: a token issued at
 * or before its subject's cut-off is refused. Pure apart from signing; `now` is epoch ms.
 */
import type { Config } from "../config";
import { signAccessToken, type PlatformKeys } from "./platform-keys";
import { END_USER_SCOPES, END_USER_SUBJECT_PREFIX, hasScope, type Principal, type Scope } from "./principal";

/** Long enough for a page to work, short enough that a token copied out of a browser soon dies. */
export const MIN_END_USER_TOKEN_TTL_SECONDS = 60;
export const MAX_END_USER_TOKEN_TTL_SECONDS = 60 * 60;
export const DEFAULT_END_USER_TOKEN_TTL_SECONDS = 15 * 60;
/** A chat page's needs: its own sessions; memory only when the backend asks for it. */
export const DEFAULT_END_USER_TOKEN_SCOPES: readonly Scope[] = ["sessions:read", "sessions:write"];

export interface EndUserTokenRequest {
  subject: string;
  scopes?: readonly Scope[] | undefined;
  ttl_seconds?: number | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface IssuedEndUserToken {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  subject: string;
}

export type EndUserTokenResult =
  | { ok: true; token: IssuedEndUserToken }
  /** The caller is an end user (or a stream token): a token cannot mint tokens for others. */
  | { ok: false; reason: "caller_is_end_user" }
  /** Scopes the caller does not hold itself, or no end user may hold, each with its index in the request. */
  | { ok: false; reason: "scopes_not_grantable"; scopes: { index: number; scope: Scope }[] }
  /** The caller's own credential ends within the second. */
  | { ok: false; reason: "expiring" };

/** Pure: the scopes asked that cannot be given, with their place in the request. */
export function ungrantableScopes(caller: Pick<Principal, "scopes">, asked: readonly Scope[]): { index: number; scope: Scope }[] {
  return asked.flatMap((scope, index) => (END_USER_SCOPES.includes(scope) && hasScope(caller, scope) ? [] : [{ index, scope }]));
}

export async function issueEndUserToken(
  keys: Pick<PlatformKeys, "kid" | "alg" | "privateKey">,
  caller: Principal,
  request: EndUserTokenRequest,
  config: Config["auth"],
  now: number,
): Promise<EndUserTokenResult> {
  if (caller.endUser !== undefined || caller.streamOnly) return { ok: false, reason: "caller_is_end_user" };
  const asked = request.scopes ?? DEFAULT_END_USER_TOKEN_SCOPES;
  const refused = ungrantableScopes(caller, asked);
  if (refused.length > 0) return { ok: false, reason: "scopes_not_grantable", scopes: refused };
  // Never past the caller's own credential: a token cannot stretch itself by minting another.
  const asking = request.ttl_seconds ?? DEFAULT_END_USER_TOKEN_TTL_SECONDS;
  const ttl = caller.expiresAt === undefined ? asking : Math.min(asking, Math.floor((caller.expiresAt - now) / 1000));
  if (ttl < 1) return { ok: false, reason: "expiring" };
  const scopes = END_USER_SCOPES.filter((scope) => asked.includes(scope));
  const token = await signAccessToken(
    keys,
    {
      tenantId: caller.tenantId,
      subject: END_USER_SUBJECT_PREFIX + request.subject,
      scopes,
      ttlSeconds: ttl,
      ...(request.metadata ? { endUserMetadata: request.metadata } : {}),
      // Minted by a key (or a token exchanged from one): the token ends with the key.
      ...(caller.keyId !== undefined ? { sourceKeyId: caller.keyId } : {}),
    },
    config,
    now,
  );
  return { ok: true, token: { access_token: token, token_type: "Bearer", expires_in: ttl, subject: request.subject } };
}

/**
 * Pure: whether an end user's token was revoked: issued at or before its subject's cut-off
 * (`revokedBefore`, which the tenant index returns with the request's admission).
 */
export function endUserTokenRevoked(principal: Pick<Principal, "endUser" | "issuedAt">, revokedBefore: number | undefined): boolean {
  if (principal.endUser === undefined || revokedBefore === undefined) return false;
  return principal.issuedAt === undefined || principal.issuedAt <= revokedBefore;
}
