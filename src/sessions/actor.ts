/**
 * Who a session operation acts for and what its tenant allows it. A request's middleware
 * gathers this (authentication, then the tenant index's admission); a schedule's firing rebuilds
 * it from the schedule's creator and a fresh admission, so both run the same operations.
 */
import type { ShardLayout } from "../shared/shard-layout";
import type { AuditContext } from "../audit/types";
import type { Principal } from "../auth/principal";
import type { Config } from "../config";
import type { Env } from "../env";
import type { Limits } from "../limits";
import type { TenantSettings } from "../tenants/types";

export interface Actor {
  env: Env;
  config: Config;
  principal: Principal;
  /** The tenant's effective limits, as its index admitted the operation. */
  limits: Limits;
  settings: TenantSettings;
  /** The models the tenant's sessions may choose, from the same admission; null: not narrowed. */
  models: readonly string[] | null;
  /** The shard layout new sessions are placed by, from the same admission; absent: the tenant index keeps them. */
  shards?: ShardLayout;
  /** The request's W3C `traceparent`, when it sent one: a run it starts is traced as its child. */
  traceparent?: string | null;
  /** Who the audit log names for a change this operation makes; absent for the platform's own (a schedule's firing). */
  audit?: AuditContext;
}
