/**
 * End users: a backend mints a short-lived token for its signed-in user (`endUsers.issueToken`)
 * and revokes them (`endUsers.revokeTokens`); any credential asks who it is (`me`).
 */
import type { PlatformClient } from "./client.ts";
import { expectData } from "./errors.ts";
import type { EndUserToken, EndUserTokenRequest, Me } from "./types.ts";

/** `POST /v1/auth/end-user-token`: a token for principal `end_user:<subject>`, for that user's browser. */
async function issueToken(client: PlatformClient, request: EndUserTokenRequest): Promise<EndUserToken> {
  return expectData(client.POST("/v1/auth/end-user-token", { body: request }));
}

/** `POST /v1/end-users/{subject}/revoke-tokens`: the subject's tokens issued until now stop working. */
async function revokeTokens(client: PlatformClient, subject: string): Promise<void> {
  await expectData(client.POST("/v1/end-users/{subject}/revoke-tokens", { params: { path: { subject } } }));
}

export const endUsers = { issueToken, revokeTokens } as const;

/** `GET /v1/me`: the tenant, subject, kind, scopes and expiry of the client's credential. */
export function me(client: PlatformClient): Promise<Me> {
  return expectData(client.GET("/v1/me"));
}
