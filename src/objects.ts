/**
 * Every Durable Object name and stub, in one module. A session object is addressed by tenant *and*
 * session id, so a session id guessed or leaked from another tenant names a different, empty
 * object; a tenant's index by its tenant id. The tenant always comes from the authenticated
 * principal (or the session's own record), never from a raw path segment. A tenant's scheduler,
 * like its index, is named by its tenant id, and so are its agent store, its memory store and its vault.
 *
 * Every object of a tenant lives in the tenant's jurisdiction (docs/deploying.md, "Residency"):
 * its stubs come from `tenantObjectStub` alone, which narrows the namespace (`scripts/object-access.mjs`
 * refuses any other use of a namespace in src/).
 */
import { describeError, log } from "./log";
import { runsLocally } from "./local-runtime";

/** The jurisdictions a platform admin may pin a tenant to (Cloudflare's, for Durable Objects). */
export const JURISDICTIONS = ["eu", "fedramp"] as const;
export type Jurisdiction = (typeof JURISDICTIONS)[number];

/** The name of the one registry instance that lists every tenant. */
export const TENANT_REGISTRY_NAME = "registry";

export function sessionObjectName(tenantId: string, sessionId: string): string {
  return `${encodeURIComponent(tenantId)}/${encodeURIComponent(sessionId)}`;
}

export function tenantIndexName(tenantId: string): string {
  return `tenant/${encodeURIComponent(tenantId)}`;
}

/** Shard `k` of a generation of the tenant's sessions (src/tenants/shards/). */
export function tenantShardName(tenantId: string, generation: number, k: number): string {
  return `shard/${encodeURIComponent(tenantId)}/${generation}/${k}`;
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

/** The bindings whose objects belong to one tenant; the registry alone is the platform's. */
export type TenantBinding = "SESSION" | "TENANT_INDEX" | "TENANT_SHARD" | "SCHEDULER" | "AGENT_STORE" | "MEMORY_STORE" | "VAULT";

/**
 * The one way to a tenant's object: the namespace narrowed to the tenant's jurisdiction, then
 * the object by name. A new per-tenant class adds its binding to `TenantBinding` and a one-line
 * `…Stub` below that calls this with its name.
 */
export function tenantObjectStub<B extends TenantBinding>(
  env: Cloudflare.Env,
  binding: B,
  tenantId: string,
  name: string,
  placements = PLACEMENTS,
): Cloudflare.Env[B] extends DurableObjectNamespace<infer T> ? DurableObjectStub<T> : never {
  const namespace = env[binding] as unknown as DurableObjectNamespace<Rpc.DurableObjectBranded>;
  const placement = placements.known(env, tenantId);
  if (placement !== undefined) return placedStub(namespace, placement, name) as never;
  // Not known in this isolate yet: a stub that learns the placement before its first call.
  return deferredStub(() => placements.of(env, tenantId).then((jurisdiction) => placedStub(namespace, jurisdiction, name))) as never;
}

/** A namespace narrowed to `jurisdiction`, and the object `name` in it. */
export function placedStub<T extends Rpc.DurableObjectBranded | undefined>(
  namespace: DurableObjectNamespace<T>,
  jurisdiction: Jurisdiction | null,
  name: string,
): DurableObjectStub<T> {
  const placed = jurisdiction === null ? namespace : namespace.jurisdiction(jurisdiction);
  return placed.get(placed.idFromName(name));
}

export function sessionStub(env: Cloudflare.Env, tenantId: string, sessionId: string) {
  return tenantObjectStub(env, "SESSION", tenantId, sessionObjectName(tenantId, sessionId));
}

export function tenantIndexStub(env: Cloudflare.Env, tenantId: string) {
  return tenantObjectStub(env, "TENANT_INDEX", tenantId, tenantIndexName(tenantId));
}

export function tenantShardStub(env: Cloudflare.Env, tenantId: string, shard: { generation: number; k: number }) {
  return tenantObjectStub(env, "TENANT_SHARD", tenantId, tenantShardName(tenantId, shard.generation, shard.k));
}

export function tenantRegistryStub(env: Cloudflare.Env) {
  return env.TENANT_REGISTRY.get(env.TENANT_REGISTRY.idFromName(TENANT_REGISTRY_NAME));
}

export function schedulerStub(env: Cloudflare.Env, tenantId: string) {
  return tenantObjectStub(env, "SCHEDULER", tenantId, schedulerName(tenantId));
}

export function agentStoreStub(env: Cloudflare.Env, tenantId: string) {
  return tenantObjectStub(env, "AGENT_STORE", tenantId, agentStoreName(tenantId));
}

export function memoryStoreStub(env: Cloudflare.Env, tenantId: string) {
  return tenantObjectStub(env, "MEMORY_STORE", tenantId, memoryStoreName(tenantId));
}

export function vaultStub(env: Cloudflare.Env, tenantId: string) {
  return tenantObjectStub(env, "VAULT", tenantId, vaultName(tenantId));
}

// ---- The placement of each tenant, as this isolate knows it ----

/**
 * How long this isolate trusts an answer of the registry. A tenant that holds data cannot change
 * its jurisdiction any more (the registry refuses), so its answer is kept long; a tenant that
 * holds nothing yet may still be given one from another isolate, so its answer is not kept at all:
 * kept, it would bind the tenant's first objects where the platform admin just said they must not be.
 */
export const SETTLED_PLACEMENT_TTL_MS = 10 * 60_000;
/** Tenants remembered at once; the oldest answer goes first past this. */
export const MAX_KNOWN_PLACEMENTS = 10_000;

/** The registry's answer: the tenant's jurisdiction, and whether it may still change. */
export interface Placement {
  jurisdiction: Jurisdiction | null;
  settled: boolean;
}

/**
 * What one isolate knows of each tenant's placement. The module keeps one (`PLACEMENTS`); a test
 * makes its own, with namespaces of its own.
 */
export class Placements {
  readonly #known = new Map<string, { jurisdiction: Jurisdiction | null; until: number }>();
  readonly #asking = new Map<string, Promise<Jurisdiction | null>>();
  #jurisdictionsWork: boolean | undefined;

  /** The tenant's jurisdiction if known here without asking (always, on a local runtime). */
  known(env: Cloudflare.Env, tenantId: string, now = Date.now()): Jurisdiction | null | undefined {
    if (!this.#implemented(env)) return null;
    const entry = this.#known.get(tenantId);
    if (entry === undefined) return undefined;
    if (entry.until > now) return entry.jurisdiction;
    this.#known.delete(tenantId);
    return undefined;
  }

  /** The tenant's jurisdiction: from memory, else one question to the registry (shared by concurrent callers). */
  async of(env: Cloudflare.Env, tenantId: string): Promise<Jurisdiction | null> {
    const held = this.known(env, tenantId);
    if (held !== undefined) return held;
    const pending =
      this.#asking.get(tenantId) ??
      tenantRegistryStub(env)
        .placement(tenantId)
        .then((answer: Placement) => {
          this.note(tenantId, answer, Date.now());
          return answer.jurisdiction;
        })
        .finally(() => this.#asking.delete(tenantId));
    this.#asking.set(tenantId, pending);
    return pending;
  }

  /** Remembers the registry's answer for the tenant, if settled (an unsettled one is asked for again each time). */
  note(tenantId: string, answer: Placement, now: number): void {
    this.#known.delete(tenantId);
    if (!answer.settled) return;
    if (this.#known.size >= MAX_KNOWN_PLACEMENTS) this.#known.delete(this.#known.keys().next().value!);
    this.#known.set(tenantId, { jurisdiction: answer.jurisdiction, until: now + SETTLED_PLACEMENT_TTL_MS });
  }

  /**
   * Whether this runtime places objects by jurisdiction. Cloudflare's does; a local workerd
   * (`wrangler dev`, the test runner) throws "Jurisdiction restrictions are not implemented in
   * workerd." for every `jurisdiction()` call: there, and only there, every tenant's objects stay
   * in the plain namespace. Deployed, such an error is not swallowed.
   */
  #implemented(env: Cloudflare.Env): boolean {
    if (this.#jurisdictionsWork !== undefined) return this.#jurisdictionsWork;
    try {
      env.TENANT_INDEX.jurisdiction("eu");
      this.#jurisdictionsWork = true;
    } catch (error) {
      if (!runsLocally() || !/not implemented/i.test(describeError(error).message)) throw error;
      log("warn", "jurisdictions_not_implemented", { detail: "a local runtime: every tenant's objects stay in the plain namespace" });
      this.#jurisdictionsWork = false;
    }
    return this.#jurisdictionsWork;
  }
}

const PLACEMENTS = new Placements();

/**
 * A stub whose methods wait for the real one: each call (`stub.method(...)`) resolves the stub
 * first, then calls it. Only method calls are offered, which is all src/ makes of a stub.
 */
function deferredStub(resolve: () => Promise<object>): object {
  let stub: Promise<object> | undefined;
  return new Proxy(
    {},
    {
      get(_target, property) {
        // Not a promise: awaiting the stub itself must not wait for a call named `then`.
        if (property === "then" || typeof property !== "string") return undefined;
        // The id and name are only known once placed: answering a function for them would fail far from here.
        if (property === "id" || property === "name")
          throw new TypeError(`a tenant's stub before its placement is known supports method calls only: ${property}`);
        return async (...args: unknown[]) => {
          stub ??= resolve().catch((error: unknown) => {
            stub = undefined;
            throw error;
          });
          const real = (await stub) as Record<string, (...args: unknown[]) => unknown>;
          return real[property]!(...args);
        };
      },
    },
  );
}
