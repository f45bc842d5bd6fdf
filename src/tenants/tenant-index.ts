import { DurableObject } from "cloudflare:workers";
export class TenantIndex extends DurableObject<Cloudflare.Env> {}
