/**
 * The Worker's bindings, typed once. Nothing below the edge reads these directly:
 * `loadConfig` turns them into a parsed `Config` that is passed in. The Durable Object
 * namespaces are typed by the objects' RPC interfaces, not their classes, so no module that
 * reads the environment depends on an object's implementation.
 */

/**
 * Each Durable Object namespace's RPC interface, by binding. Empty here: each object's folder adds
 * its own in its rpc.ts (`declare module "../env"`), so this module, at the bottom of src/, names
 * no folder above it, and a binding whose folder adds none fails to compile.
 */
export interface ObjectRpcs {}

/** A namespace whose stubs offer its object's RPC methods (the brand marks them as a Durable Object's). */
type Namespace<Binding extends keyof ObjectRpcs> = DurableObjectNamespace<ObjectRpcs[Binding] & Rpc.DurableObjectBranded>;

export interface Env {
  SESSION: Namespace<"SESSION">;
  TENANT_INDEX: Namespace<"TENANT_INDEX">;
  /** Per tenant, per generation and shard number: the rows, usage and run slots of the sessions hashed to it. */
  TENANT_SHARD: Namespace<"TENANT_SHARD">;
  TENANT_REGISTRY: Namespace<"TENANT_REGISTRY">;
  /** One per tenant: its schedules, fired from the object's alarm. */
  SCHEDULER: Namespace<"SCHEDULER">;
  /** One per tenant: its agents, their versions and aliases. */
  AGENT_STORE: Namespace<"AGENT_STORE">;
  /** One per tenant: its memory items. */
  MEMORY_STORE: Namespace<"MEMORY_STORE">;
  /** One per tenant: its credentials and its end users', sealed under `VAULT_KEYS`. */
  VAULT: Namespace<"VAULT">;
  /** The Worker's static assets (wrangler.json `assets`): the API reference's script. */
  ASSETS: Fetcher;
  /** Counts failed authentications per client address across isolates (wrangler.json `ratelimits`). */
  AUTH_FAILURE_LIMITER: RateLimit;

  AUTH_ISSUER?: string;
  AUTH_AUDIENCE?: string;
  /** Private JWK (ES256 or EdDSA), as JSON text. A secret. */
  AUTH_SIGNING_KEY?: string;
  /** At least 32 random bytes, base64url: the key of the tag every issued API key carries. A secret. */
  AUTH_API_KEY_SECRET?: string;
  /** `false` refuses API keys issued before keys carried a tag, without any I/O; default true. */
  AUTH_LEGACY_API_KEYS?: string;
  AUTH_JWKS_URL?: string;
  AUTH_EXTERNAL_ISSUER?: string;
  AUTH_EXTERNAL_AUDIENCE?: string;
  AUTH_TENANT_CLAIM?: string;
  /** `true` lets the external identity provider grant `platform:admin`; default false. */
  AUTH_EXTERNAL_PLATFORM_ADMIN?: string;
  /** The longest lifetime a JWT may have, in seconds; default 86400. */
  AUTH_MAX_TOKEN_AGE_SECONDS?: string;
  /** Failed authentications per client address and minute before its unverified requests get 429; default 60. */
  AUTH_FAILURES_PER_MINUTE?: string;
  /** The request header that holds the client's address (config.ts, `parseClientAddressHeader`). */
  TRUSTED_CLIENT_IP_HEADER?: string;

  MODEL?: string;
  /** JSON list of the models sessions may choose (ids or `prefix*` patterns); unset: any. */
  MODELS?: string;
  /** JSON object: model id or `prefix*` → `{ input, output, cache_read, cache_write }` USD per million tokens; over a built-in table. */
  MODEL_PRICES?: string;
  ANTHROPIC_API_KEY?: string;
  OPENAI_API_KEY?: string;
  LLM_BASE_URL?: string;
  OPENAI_BASE_URL?: string;
  /** The model of an OpenAI-compatible `/v1/embeddings` for memory's hybrid search; unset: BM25 alone. */
  EMBEDDINGS_MODEL?: string;
  /** Where the embeddings are asked; default `OPENAI_BASE_URL`. */
  EMBEDDINGS_BASE_URL?: string;
  /** Default `OPENAI_API_KEY` when `EMBEDDINGS_BASE_URL` is unset (never sent to another host). A secret. */
  EMBEDDINGS_API_KEY?: string;
  /** The cosine similarity (0-1) an item must reach to be found by its vector alone; default 0.3. */
  EMBEDDINGS_MIN_SIMILARITY?: string;

  /** JSON object of platform default limits. */
  DEFAULT_LIMITS?: string;
  ALLOW_PRIVATE_URLS?: string;
  /** Makes the Dynamic Workers `run_code` runs in (`RUN_CODE_ISOLATE=dynamic_worker`). */
  LOADER?: WorkerLoader;
  /** Where `run_code` runs: `dynamic_worker` (production) or `interpreter` (default; local runtimes). */
  RUN_CODE_ISOLATE?: string;
  /** `true` lets `dynamic_worker` run under a local runtime (src/local-runtime.ts); the end-to-end test of that path only. */
  ALLOW_LOCAL_DYNAMIC_WORKER?: string;
  /** JSON list of base64url 32-byte keys; the first seals the vault's secrets, every one opens them. A secret; unset: no vault. */
  VAULT_KEYS?: string;
  /** Model call timeout in ms; at most (and by default) 110000. */
  MODEL_TIMEOUT_MS?: string;
  /** JSON list of origins allowed to call the API from a browser; default none. */
  CORS_ORIGINS?: string;
  /** Factor (0 < x ≤ 1) on the status-webhook retry delays; 1 by default, lower in tests only. */
  NOTIFY_RETRY_SCALE?: string;
  /** Days a session is kept after its last change when its tenant set no retention; unset: kept. */
  DEFAULT_SESSION_RETENTION_DAYS?: string;
  /** Factor (0 < x ≤ 1) on the length of a retention day; 1 by default, lower in tests only. */
  SESSION_RETENTION_SCALE?: string;
}

type PlatformEnv = Env;
declare global {
  namespace Cloudflare {
    interface Env extends PlatformEnv {}
  }
}
