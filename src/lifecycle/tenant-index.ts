/**
 * The tenant index the runtime runs (exported by src/index.ts): the door of src/tenants/, given
 * the `SessionEraser` its retention sweep erases expired sessions with. Wired here, above both,
 * so that src/tenants/ never imports the sessions layer it would otherwise call up into.
 */
import { TenantIndex as TenantIndexDoor } from "../tenants/tenant-index";
import { sessionEraser } from "./session-eraser";

export class TenantIndex extends TenantIndexDoor {
  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env, sessionEraser(env));
  }
}
