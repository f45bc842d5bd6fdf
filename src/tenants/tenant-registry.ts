/**
 * The TenantRegistry Durable Object: a single instance, named "registry", that records every
 * tenant once, when its index is first used. Storage: see storage.md.
 */
import { DurableObject } from "cloudflare:workers";
import type { Page } from "../agents/types";
import { isValidTenantId } from "../auth/principal";
import { createRegistrySchema, listTenants, registerTenant } from "./registry-store";
import type { PageInput, TenantEntry } from "./types";
import { requireNow, requirePageLimit, requireString } from "./validate";

/** The name of the one registry instance. */
export const TENANT_REGISTRY_NAME = "registry";

export function tenantRegistryStub(env: Cloudflare.Env) {
  return env.TENANT_REGISTRY.get(env.TENANT_REGISTRY.idFromName(TENANT_REGISTRY_NAME));
}

export class TenantRegistry extends DurableObject<Cloudflare.Env> {
  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => createRegistrySchema(ctx.storage.sql));
  }

  async register(tenantId: string, now: number): Promise<void> {
    if (!isValidTenantId(tenantId)) throw new TypeError("tenantId is not a valid tenant id");
    registerTenant(this.ctx.storage.sql, tenantId, requireNow(now));
  }

  async list(input: PageInput): Promise<Page<TenantEntry>> {
    const cursor = input.cursor == null ? null : requireString("cursor", input.cursor, Infinity);
    return listTenants(this.ctx.storage.sql, requirePageLimit(input.limit), cursor);
  }
}
