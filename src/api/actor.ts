/** The actor of a request, as its middleware gathered it, for the session operations. */
import type { Actor } from "../sessions/actor";
import { auditContext } from "./audit-context";
import type { AppContext } from "./context";

export function actorOf(c: AppContext): Actor {
  return {
    env: c.env,
    config: c.var.config,
    principal: c.var.principal,
    limits: c.var.limits,
    settings: c.var.settings,
    models: c.var.models,
    shards: c.var.shards,
    traceparent: c.req.header("traceparent") ?? null,
    audit: auditContext(c),
  };
}
