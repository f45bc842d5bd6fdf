/**
 * Parses the environment once into a typed `Config`. A value that is present but
 * malformed is a start-up error with a clear message, never a silent default.
 */
import type { Env } from "./env";
import { localDynamicWorkerRefusal, runsLocally } from "./local-runtime";
import { ACCESS_TOKEN_TTL_SECONDS, BUILTIN_DEFAULT_LIMITS, type Limits, MODEL_CALL_TIMEOUT_MS, partialLimitsSchema } from "./limits";
import { DAY_MS, MAX_SESSION_RETENTION_DAYS, MIN_SESSION_RETENTION_DAYS } from "./limits";
import { mockPrices, parsePrices, type PriceTable } from "./models/prices";
import { MOCK_PROVIDER_KEY } from "./models/mock";
import { canonicalModel, isModelAllowed, type CatalogEntry, type ModelCatalog } from "./models/catalog";
import { PROVIDER_TOOL_NAMES, type ProviderToolName } from "./models/catalog";

/** A day: long enough for any session-length access token, short enough that a leak expires. */
export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 24 * 60 * 60;
/** Thirty days: a token living longer than this is a credential, not an access token. */
export const MAX_MAX_TOKEN_AGE_SECONDS = 30 * 24 * 60 * 60;
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 60;
/** Far above any honest client's mistakes; a higher ceiling would not limit anything. */
export const MAX_AUTH_FAILURES_PER_MINUTE = 10_000;

/** Memory's embeddings (src/memory/embeddings.ts): an OpenAI-compatible `/v1/embeddings`. */
export interface EmbeddingsConfig {
  /** Sent as `model`. */
  model: string;
  /** With or without a trailing `/v1`, like the OpenAI-compatible model provider's. */
  baseUrl: string;
  apiKey: string | undefined;
  /** The cosine similarity an item must reach to be found by its vector alone. */
  minSimilarity: number;
}

export interface Config {
  auth: {
    issuer: string;
    audience: string;
    signingKey: string | undefined;
    /** `AUTH_API_KEY_SECRET`, as text; loaded (and its absence reported) by `loadApiKeySecret`. */
    apiKeySecret: string | undefined;
    /** Whether API keys without a tag (issued before tags existed) are still looked up. */
    legacyApiKeys: boolean;
    jwksUrl: string | undefined;
    externalIssuer: string | undefined;
    externalAudience: string | undefined;
    tenantClaim: string;
    /** Whether the external identity provider may grant `platform:admin`; by default only the platform's own issuer can. */
    externalPlatformAdmin: boolean;
    /** The longest lifetime a JWT may have, from now (and from its `iat` when it has one) to its `exp`. */
    maxTokenAgeSeconds: number;
    /** Failed authentications per client address and minute before its unverified requests get 429. */
    failuresPerMinute: number;
  };
  model: string;
  /** The models sessions may choose (`MODELS`); null when it is not set: any model id. */
  models: ModelCatalog;
  /** `MODEL_PRICES`, canonical; the built-in table (models/prices.ts) covers the models it does not name. */
  prices: PriceTable;
  anthropic: { baseUrl: string; apiKey: string | undefined };
  openai: { baseUrl: string; apiKey: string | undefined };
  /** Memory's hybrid search; null without `EMBEDDINGS_MODEL`. */
  embeddings: EmbeddingsConfig | null;
  defaultLimits: Limits;
  allowPrivateUrls: boolean;
  /**
   * Where `run_code` runs: `dynamic_worker`, a child isolate under a CPU limit of its own (needs
   * the `LOADER` binding; it bounds the code in production only), or `interpreter`, in the
   * session's object. docs/tools.md says what each bounds where.
   */
  runCodeIsolate: RunCodeIsolate;
  /** How long a model call may take before it is abandoned and retried. */
  modelTimeoutMs: number;
  /** Origins whose browser pages may call the API (CORS); empty: none. */
  corsOrigins: readonly string[];
  /**
   * The factor on every delay of the status-webhook retry schedule (notifications/schedule.ts):
   * 1 in production; tests set it lower to see hours of retries in seconds.
   */
  notifyRetryScale: number;
  /** `DEFAULT_SESSION_RETENTION_DAYS`: the retention of tenants that set none; null keeps sessions. */
  defaultSessionRetentionDays: number | null;
  /** A retention day's length in ms: a day, shortened by `SESSION_RETENTION_SCALE` in tests only. */
  retentionDayMs: number;
  /**
   * The request header the deployment trusts to hold the client's address (`TRUSTED_CLIENT_IP_HEADER`),
   * or null: no address is known (src/api/client-address.ts is the one reader).
   */
  clientAddressHeader: string | null;
}

export type RunCodeIsolate = "interpreter" | "dynamic_worker";

export class ConfigError extends Error {
  override name = "ConfigError";
}

const cache = new WeakMap<object, Config>();

export function loadConfig(env: Env): Config {
  const hit = cache.get(env);
  if (hit) return hit;
  const config = parseConfig(env);
  const refusal = localDynamicWorkerRefusal(config.runCodeIsolate, env);
  if (refusal) throw new ConfigError(refusal);
  cache.set(env, config);
  return config;
}

export function parseConfig(env: Env, isLocal: () => boolean = runsLocally): Config {
  const model = env.MODEL || "claude-sonnet-4-5";
  const models = parseModels(env.MODELS);
  if (!isModelAllowed(models, null, model)) throw new ConfigError(`MODEL "${model}" is not one of MODELS`);
  return {
    auth: {
      issuer: env.AUTH_ISSUER || "https://agents.local",
      audience: env.AUTH_AUDIENCE || "agent-platform",
      signingKey: env.AUTH_SIGNING_KEY || undefined,
      apiKeySecret: env.AUTH_API_KEY_SECRET || undefined,
      legacyApiKeys:
        env.AUTH_LEGACY_API_KEYS === undefined ||
        env.AUTH_LEGACY_API_KEYS === "" ||
        parseBoolean("AUTH_LEGACY_API_KEYS", env.AUTH_LEGACY_API_KEYS),
      jwksUrl: env.AUTH_JWKS_URL || undefined,
      externalIssuer: env.AUTH_EXTERNAL_ISSUER || undefined,
      externalAudience: env.AUTH_EXTERNAL_AUDIENCE || undefined,
      tenantClaim: env.AUTH_TENANT_CLAIM || "tenant_id",
      externalPlatformAdmin: parseBoolean("AUTH_EXTERNAL_PLATFORM_ADMIN", env.AUTH_EXTERNAL_PLATFORM_ADMIN),
      // The platform's own exchanged tokens must fit, or every API key exchange would be refused.
      maxTokenAgeSeconds: parseInteger("AUTH_MAX_TOKEN_AGE_SECONDS", env.AUTH_MAX_TOKEN_AGE_SECONDS, {
        fallback: DEFAULT_MAX_TOKEN_AGE_SECONDS,
        min: ACCESS_TOKEN_TTL_SECONDS,
        max: MAX_MAX_TOKEN_AGE_SECONDS,
      }),
      failuresPerMinute: parseInteger("AUTH_FAILURES_PER_MINUTE", env.AUTH_FAILURES_PER_MINUTE, {
        fallback: DEFAULT_AUTH_FAILURES_PER_MINUTE,
        min: 1,
        max: MAX_AUTH_FAILURES_PER_MINUTE,
      }),
    },
    model,
    models,
    prices:
      env.ANTHROPIC_API_KEY === MOCK_PROVIDER_KEY ? mockPrices(parseModelPrices(env.MODEL_PRICES)) : parseModelPrices(env.MODEL_PRICES),
    anthropic: {
      baseUrl: trimSlash(env.LLM_BASE_URL || "https://api.anthropic.com"),
      apiKey: env.ANTHROPIC_API_KEY || undefined,
    },
    openai: {
      baseUrl: trimSlash(env.OPENAI_BASE_URL || "https://api.openai.com"),
      apiKey: env.OPENAI_API_KEY || undefined,
    },
    embeddings: env.EMBEDDINGS_MODEL
      ? {
          model: env.EMBEDDINGS_MODEL,
          baseUrl: trimSlash(env.EMBEDDINGS_BASE_URL || env.OPENAI_BASE_URL || "https://api.openai.com"),
          // The OpenAI key goes only where OpenAI-compatible calls already go, never to another host.
          apiKey: env.EMBEDDINGS_API_KEY || (env.EMBEDDINGS_BASE_URL ? undefined : env.OPENAI_API_KEY) || undefined,
          minSimilarity: parseFraction("EMBEDDINGS_MIN_SIMILARITY", env.EMBEDDINGS_MIN_SIMILARITY, DEFAULT_MIN_SIMILARITY),
        }
      : null,
    defaultLimits: parseDefaultLimits(env.DEFAULT_LIMITS),
    allowPrivateUrls: parseBoolean("ALLOW_PRIVATE_URLS", env.ALLOW_PRIVATE_URLS),
    runCodeIsolate: parseRunCodeIsolate(env),
    modelTimeoutMs: parseTimeout(env.MODEL_TIMEOUT_MS),
    corsOrigins: parseOrigins("CORS_ORIGINS", env.CORS_ORIGINS),
    notifyRetryScale: parseScale("NOTIFY_RETRY_SCALE", env.NOTIFY_RETRY_SCALE),
    defaultSessionRetentionDays:
      env.DEFAULT_SESSION_RETENTION_DAYS === undefined || env.DEFAULT_SESSION_RETENTION_DAYS === ""
        ? null
        : parseInteger("DEFAULT_SESSION_RETENTION_DAYS", env.DEFAULT_SESSION_RETENTION_DAYS, {
            fallback: 0,
            min: MIN_SESSION_RETENTION_DAYS,
            max: MAX_SESSION_RETENTION_DAYS,
          }),
    retentionDayMs: DAY_MS * parseScale("SESSION_RETENTION_SCALE", env.SESSION_RETENTION_SCALE),
    clientAddressHeader: parseClientAddressHeader(env.TRUSTED_CLIENT_IP_HEADER, isLocal),
  };
}

/** Set by Cloudflare's edge on every request from the internet, a client's own value replaced. */
export const DEFAULT_CLIENT_ADDRESS_HEADER = "CF-Connecting-IP";
/** An HTTP field name (RFC 9110's token), short. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;

/**
 * `TRUSTED_CLIENT_IP_HEADER`: unset, Cloudflare's header where the platform runs on Cloudflare and
 * none under a local runtime, since `wrangler dev` answers every client from one address and any
 * client can send the header there; `none`, no header at all; a header name, that header wherever
 * the platform runs (a proxy of the deployment's own sets it, replacing a client's value).
 */
export function parseClientAddressHeader(value: string | undefined, isLocal: () => boolean): string | null {
  if (value === undefined || value.trim() === "") return isLocal() ? null : DEFAULT_CLIENT_ADDRESS_HEADER;
  const name = value.trim();
  if (name.toLowerCase() === "none") return null;
  if (!HEADER_NAME.test(name)) throw new ConfigError(`TRUSTED_CLIENT_IP_HEADER must be a header name (like CF-Connecting-IP) or "none"`);
  return name;
}

function parseModelPrices(text: string | undefined): PriceTable {
  try {
    return parsePrices(text);
  } catch (error) {
    throw new ConfigError(String((error as Error).message));
  }
}

/** Origins a list may name at most; an allow-list longer than this is a wildcard in disguise. */
export const MAX_CORS_ORIGINS = 100;

/**
 * A JSON list of origins, each exactly as a browser sends it in `Origin` (`https://host[:port]`,
 * no path, no trailing slash). No wildcard: every origin allowed to call with a token is named.
 */
function parseOrigins(name: string, text: string | undefined): readonly string[] {
  if (text === undefined || text.trim() === "") return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`${name} is not valid JSON`);
  }
  if (!Array.isArray(json) || json.length > MAX_CORS_ORIGINS)
    throw new ConfigError(`${name} must be a JSON list of at most ${MAX_CORS_ORIGINS} origins`);
  return json.map((origin: unknown) => {
    if (typeof origin !== "string" || !isOrigin(origin)) {
      throw new ConfigError(`${name}: ${JSON.stringify(origin)} is not an origin like "https://console.example.com"`);
    }
    return origin;
  });
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
}

/** Below this cosine similarity an item is not found by its vector alone (see docs/memory.md). */
const DEFAULT_MIN_SIMILARITY = 0.3;

/** A number from 0 to 1. */
function parseFraction(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const fraction = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || !(fraction >= 0 && fraction <= 1)) throw new ConfigError(`${name} must be a number from 0 to 1`);
  return fraction;
}

/** A factor in (0, 1]: a schedule may be shortened (tests), never lengthened or removed. */
function parseScale(name: string, value: string | undefined): number {
  if (value === undefined || value === "") return 1;
  const scale = Number(value);
  if (!/^\d*\.?\d+(e-?\d+)?$/i.test(value) || !Number.isFinite(scale) || scale <= 0 || scale > 1) {
    throw new ConfigError(`${name} must be a number greater than 0 and at most 1`);
  }
  return scale;
}

function parseDefaultLimits(text: string | undefined): Limits {
  if (!text) return BUILTIN_DEFAULT_LIMITS;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError("DEFAULT_LIMITS is not valid JSON");
  }
  const parsed = partialLimitsSchema.strict().safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConfigError(`DEFAULT_LIMITS is invalid at ${first?.path.join(".") || "(root)"}: ${first?.message}`);
  }
  return { ...BUILTIN_DEFAULT_LIMITS, ...parsed.data };
}

/** Entries of `MODELS`; a list this long is a mistake, not a catalog. */
export const MAX_MODELS = 200;
/** A model id of up to 128 characters, optionally ending in `*`. */
export const MAX_MODEL_PATTERN_CHARS = 129;
/** A model id, optionally provider-prefixed, optionally ending in `*` (any rest), or `*` alone. */
export const MODEL_PATTERN = new RegExp(`^(\\*|[A-Za-z0-9][A-Za-z0-9._:/@-]{0,${MAX_MODEL_PATTERN_CHARS - 2}}\\*?)$`);
/** The largest context size an entry may state. */
const MAX_CONTEXT_TOKENS = 100_000_000;

function isProviderToolList(value: unknown): value is ProviderToolName[] {
  return Array.isArray(value) && value.every((name) => (PROVIDER_TOOL_NAMES as readonly unknown[]).includes(name));
}

/** `MODELS`: a JSON list of ids or patterns, or of `{ id, context_tokens?, images?, reasoning?, provider_tools? }`. */
function parseModels(text: string | undefined): ModelCatalog {
  if (text === undefined || text.trim() === "") return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError("MODELS is not valid JSON");
  }
  if (!Array.isArray(json) || json.length === 0 || json.length > MAX_MODELS) {
    throw new ConfigError(`MODELS must be a list of 1 to ${MAX_MODELS} model ids`);
  }
  return json.map((item: unknown, i): CatalogEntry => {
    const entry = typeof item === "string" ? { id: item } : (item as { id?: unknown; context_tokens?: unknown; images?: unknown } | null);
    const id = entry?.id;
    if (typeof id !== "string" || !MODEL_PATTERN.test(id)) throw new ConfigError(`MODELS[${i}] is not a model id or pattern`);
    const tokens = entry?.context_tokens;
    if (tokens !== undefined && !(Number.isInteger(tokens) && (tokens as number) >= 1024 && (tokens as number) <= MAX_CONTEXT_TOKENS)) {
      throw new ConfigError(`MODELS[${i}].context_tokens must be an integer from 1024 to ${MAX_CONTEXT_TOKENS}`);
    }
    const images = (entry as { images?: unknown }).images;
    if (images !== undefined && typeof images !== "boolean") throw new ConfigError(`MODELS[${i}].images must be true or false`);
    const reasoning = (entry as { reasoning?: unknown }).reasoning;
    if (reasoning !== undefined && typeof reasoning !== "boolean") throw new ConfigError(`MODELS[${i}].reasoning must be true or false`);
    const providerTools = (entry as { provider_tools?: unknown }).provider_tools;
    if (providerTools !== undefined && !isProviderToolList(providerTools))
      throw new ConfigError(`MODELS[${i}].provider_tools must be a list of ${PROVIDER_TOOL_NAMES.join(", ")}`);
    return {
      pattern: canonicalModel(id),
      contextTokens: (tokens as number | undefined) ?? null,
      images: images ?? null,
      reasoning: reasoning ?? null,
      ...(providerTools !== undefined ? { providerTools } : {}),
    };
  });
}

function parseBoolean(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "false") return false;
  if (value === "true") return true;
  throw new ConfigError(`${name} must be "true" or "false"`);
}

function parseInteger(name: string, value: string | undefined, range: { fallback: number; min: number; max: number }): number {
  if (value === undefined || value === "") return range.fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < range.min || parsed > range.max) {
    throw new ConfigError(`${name} must be an integer between ${range.min} and ${range.max}`);
  }
  return parsed;
}

/** Lower is allowed (tests, impatient operators); higher is not: a unit must fit the 300 s alarm limit. */
function parseTimeout(value: string | undefined): number {
  if (value === undefined || value === "") return MODEL_CALL_TIMEOUT_MS;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 100 || ms > MODEL_CALL_TIMEOUT_MS) {
    throw new ConfigError(`MODEL_TIMEOUT_MS must be an integer between 100 and ${MODEL_CALL_TIMEOUT_MS}`);
  }
  return ms;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function parseRunCodeIsolate(env: Env): RunCodeIsolate {
  const value = env.RUN_CODE_ISOLATE || "interpreter";
  if (value !== "interpreter" && value !== "dynamic_worker")
    throw new ConfigError(`RUN_CODE_ISOLATE must be "interpreter" or "dynamic_worker", not "${value}"`);
  if (value === "dynamic_worker" && !env.LOADER)
    throw new ConfigError('RUN_CODE_ISOLATE "dynamic_worker" needs the LOADER binding (worker_loaders in wrangler.json)');
  return value;
}
