/**
 * Every Durable Object name and stub, in one module. A session object is addressed by tenant *and*
 * session id, so a session id guessed or leaked from another tenant names a different, empty
 * object; a tenant's index by its tenant id. The tenant always comes from the authenticated
 * principal (or the session's own record), never from a raw path segment. A tenant's scheduler,
 * like its index, is named by its tenant id, and so are its agent store, its memory store and its vault.
 */

/** The name of the one registry instance that lists every tenant. */
export const TENANT_REGISTRY_NAME = "registry";

export function sessionObjectName(tenantId: string, sessionId: string): string {
  return `${encodeURIComponent(tenantId)}/${encodeURIComponent(sessionId)}`;
}

export function tenantIndexName(tenantId: string): string {
  return `tenant/${encodeURIComponent(tenantId)}`;
}

export function schedulerName(tenantId: string): string {
  return `scheduler/${encodeURIComponent(tenantId)}`;
}

export function agentStoreName(tenantId: string): string {
  return `agents/${encodeURIComponent(tenantId)}`;
}

export function memoryStoreName(tenantId: string): string {
  return `memory/${encodeURIComponent(tenantId)}`;
}

export function vaultName(tenantId: string): string {
  return `vault/${encodeURIComponent(tenantId)}`;
}

export function sessionStub(env: Cloudflare.Env, tenantId: string, sessionId: string) {
  return env.SESSION.get(env.SESSION.idFromName(sessionObjectName(tenantId, sessionId)));
}

export function tenantIndexStub(env: Cloudflare.Env, tenantId: string) {
  return env.TENANT_INDEX.get(env.TENANT_INDEX.idFromName(tenantIndexName(tenantId)));
}

export function tenantRegistryStub(env: Cloudflare.Env) {
  return env.TENANT_REGISTRY.get(env.TENANT_REGISTRY.idFromName(TENANT_REGISTRY_NAME));
}

export function schedulerStub(env: Cloudflare.Env, tenantId: string) {
  return env.SCHEDULER.get(env.SCHEDULER.idFromName(schedulerName(tenantId)));
}

export function agentStoreStub(env: Cloudflare.Env, tenantId: string) {
  return env.AGENT_STORE.get(env.AGENT_STORE.idFromName(agentStoreName(tenantId)));
}

export function memoryStoreStub(env: Cloudflare.Env, tenantId: string) {
  return env.MEMORY_STORE.get(env.MEMORY_STORE.idFromName(memoryStoreName(tenantId)));
}

export function vaultStub(env: Cloudflare.Env, tenantId: string) {
  return env.VAULT.get(env.VAULT.idFromName(vaultName(tenantId)));
}
