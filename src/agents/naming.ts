/**
 * Durable Object naming. An Agent is addressed by tenant *and* session id, so a session id
 * guessed or leaked from another tenant names a different, empty object. The tenant always
 * comes from the authenticated principal, never from a raw path segment.
 */
export function agentObjectName(tenantId: string, sessionId: string): string {
  return `${encodeURIComponent(tenantId)}/${encodeURIComponent(sessionId)}`;
}

export function tenantIndexName(tenantId: string): string {
  return `tenant/${encodeURIComponent(tenantId)}`;
}

export function agentStub(env: Cloudflare.Env, tenantId: string, sessionId: string) {
  return env.AGENT.get(env.AGENT.idFromName(agentObjectName(tenantId, sessionId)));
}

export function tenantIndexStub(env: Cloudflare.Env, tenantId: string) {
  return env.TENANT_INDEX.get(env.TENANT_INDEX.idFromName(tenantIndexName(tenantId)));
}
