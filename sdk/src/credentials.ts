/**
 * The credential vault: a tenant's own credentials (`"tenant"`) or an end user's (`{ subject }`),
 * put, read, listed and deleted. No answer carries a secret; a secret is sent once, in the put.
 */
import type { PlatformClient } from "./client.ts";
import { expectData } from "./errors.ts";
import type { PutCredentialRequest, VaultCredential } from "./types.ts";

/** Whose credentials: the tenant's own (tenant:admin), or an end user's (end_users:issue). */
export type CredentialOwner = "tenant" | { subject: string };

async function put(client: PlatformClient, owner: CredentialOwner, name: string, body: PutCredentialRequest): Promise<VaultCredential> {
  return owner === "tenant"
    ? expectData(client.PUT("/v1/tenant/credentials/{name}", { params: { path: { name } }, body }))
    : expectData(client.PUT("/v1/end-users/{subject}/credentials/{name}", { params: { path: { subject: owner.subject, name } }, body }));
}

async function get(client: PlatformClient, owner: CredentialOwner, name: string): Promise<VaultCredential> {
  return owner === "tenant"
    ? expectData(client.GET("/v1/tenant/credentials/{name}", { params: { path: { name } } }))
    : expectData(client.GET("/v1/end-users/{subject}/credentials/{name}", { params: { path: { subject: owner.subject, name } } }));
}

async function list(client: PlatformClient, owner: CredentialOwner): Promise<VaultCredential[]> {
  const page =
    owner === "tenant"
      ? await expectData(client.GET("/v1/tenant/credentials"))
      : await expectData(client.GET("/v1/end-users/{subject}/credentials", { params: { path: { subject: owner.subject } } }));
  return page.data;
}

async function remove(client: PlatformClient, owner: CredentialOwner, name: string): Promise<void> {
  await (owner === "tenant"
    ? expectData(client.DELETE("/v1/tenant/credentials/{name}", { params: { path: { name } } }))
    : expectData(client.DELETE("/v1/end-users/{subject}/credentials/{name}", { params: { path: { subject: owner.subject, name } } })));
}

export const credentials = { put, get, list, remove } as const;
