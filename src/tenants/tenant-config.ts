/**
 * A tenant's configuration: the suspended flag, its limit overrides, its own settings and the
 * models it may use, kept as small values in the object's key-value storage, and the effective
 * limits they give.
 */
import { type Limits, type PartialLimits, partialLimitsSchema } from "../limits";
import { readAllowedModels } from "./tenant-models";
import { readSettings } from "./tenant-settings";
import type { TenantConfig, TenantSettings } from "./types";
import { toIso } from "../shared/validate";
import { isShardLayout, UNSHARDED, type ShardLayout } from "../shared/shard-layout";

const SUSPENDED_KEY = "suspended";
const OVERRIDES_KEY = "limit_overrides";
/** Every generation of the tenant's shard layout, oldest first (src/shared/shard-layout.ts); absent: never sharded. */
export const SHARD_LAYOUTS_KEY = "shard_layouts";

export interface ConfigState {
  suspended: boolean;
  overrides: PartialLimits;
  limits: Limits;
  settings: TenantSettings;
  /** The models the tenant's sessions may choose; null: every model the platform offers. */
  models: string[] | null;
  /** Every generation of its shard layout, oldest first; the last is the one new sessions get. */
  layouts: ShardLayout[];
}

/** The layouts kept, or the one layout of a tenant never sharded. */
export function readLayouts(kv: SyncKvStorage): ShardLayout[] {
  const kept = kv.get<unknown>(SHARD_LAYOUTS_KEY);
  return Array.isArray(kept) && kept.length > 0 && kept.every(isShardLayout) ? kept : [UNSHARDED];
}

export function currentLayout(config: Pick<ConfigState, "layouts">): ShardLayout {
  return config.layouts[config.layouts.length - 1] ?? UNSHARDED;
}

export function readConfigState(kv: SyncKvStorage, defaults: Limits): ConfigState {
  const overrides = kv.get<PartialLimits>(OVERRIDES_KEY) ?? {};
  return {
    suspended: kv.get<boolean>(SUSPENDED_KEY) === true,
    overrides,
    limits: effectiveLimits(defaults, overrides),
    settings: readSettings(kv),
    models: readAllowedModels(kv),
    layouts: readLayouts(kv),
  };
}

export function writeSuspended(kv: SyncKvStorage, suspended: boolean): void {
  kv.put(SUSPENDED_KEY, suspended);
}

/** Replaces the overrides as a whole (the admin route is a PUT). */
export function writeOverrides(kv: SyncKvStorage, overrides: PartialLimits): void {
  kv.put(OVERRIDES_KEY, overrides);
}

/** Unknown names and out-of-range values are refused, so a typo never silently does nothing. */
export function parseOverrides(value: unknown): PartialLimits {
  const parsed = partialLimitsSchema.strict().safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new TypeError(`invalid limit overrides at ${first?.path.join(".") || "(root)"}: ${first?.message}`);
  }
  return parsed.data;
}

/** Platform defaults, each replaced by the tenant's override where it has one. */
export function effectiveLimits(defaults: Limits, overrides: PartialLimits): Limits {
  const present = Object.entries(overrides).filter(([, value]) => value !== undefined);
  return { ...defaults, ...Object.fromEntries(present) };
}

/** The config as `getConfig` answers it. */
export function tenantConfigView(tenantId: string, config: ConfigState, createdAt: number): TenantConfig {
  return {
    tenant_id: tenantId,
    suspended: config.suspended,
    limit_overrides: config.overrides,
    effective_limits: config.limits,
    models: config.models,
    shards: currentLayout(config).shards,
    created_at: toIso(createdAt),
  };
}
