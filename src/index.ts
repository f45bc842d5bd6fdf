/** The Worker entry: the gateway app and the Durable Object classes it routes to. */
import { createApp } from "./api/app";
import type { Env } from "./env";

export { AgentStore } from "./lifecycle/agent-store";
export { MemoryStore } from "./memory/memory-store";
export { Vault } from "./vault/vault";
export { SessionObject } from "./sessions/object/session-object";
export { Scheduler } from "./schedules/scheduler";
export { TenantIndex } from "./lifecycle/tenant-index";
export { TenantShard } from "./tenants/shards/shard";
export { TenantRegistry } from "./tenants/tenant-registry";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
