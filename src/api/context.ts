/**
 * The gateway's Hono environment, declared once: the Worker bindings and the per-request
 * values that middleware sets for the handlers after it.
 */
import type { ShardLayout } from "../shared/shard-layout";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Principal } from "../auth/principal";
import type { Config } from "../config";
import type { Env } from "../env";
import type { Limits } from "../limits";
import type { TenantSettings } from "../tenants/types";

export interface AppVariables {
  /** The platform's own id of the request, set first, so even an early error response carries it. */
  requestId: string;
  /** The caller's own `X-Request-Id` when it sent a usable one, else null: never taken for the platform's. */
  clientRequestId: string | null;
  /** Parsed once per isolate from the bindings; see `loadConfig`. */
  config: Config;
  /** Set by `authenticate` on every `/v1` request; absent on the public routes. */
  principal: Principal;
  /** The tenant's effective limits, as its index admitted the request. */
  limits: Limits;
  /**
   * Set by the body limit when the body went over the cap while being read. Readers turn a
   * failed read into their own errors (the JSON validator answers "malformed JSON"), so
   * `onError` asks this first.
   */
  bodyLimitExceeded: boolean;
  /** The tenant's own settings, carried by the same admission answer. */
  settings: TenantSettings;
  /** The models the tenant's sessions may choose, from the same answer; null: not narrowed. */
  models: readonly string[] | null;
  /** The shard layout a session created by this request is placed by, from the same answer. */
  shards: ShardLayout;
  /**
   * A JSON answer as the caller will be shown it, when that is less than the route gives (an end
   * user's: end-user-gate.ts). A conditional answer's tag hashes this, so it confirms no guess of the rest.
   */
  shown?: (body: unknown) => unknown;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}

export type App = OpenAPIHono<AppEnv>;
export type AppContext = Context<AppEnv>;
