/**
 * Parses the environment once into a typed `Config`. A value that is present but
 * malformed is a start-up error with a clear message, never a silent default.
 */
import type { Env } from "./env";
import { ACCESS_TOKEN_TTL_SECONDS } from "./auth/access-token";
import { BUILTIN_DEFAULT_LIMITS, type Limits, MODEL_CALL_TIMEOUT_MS, partialLimitsSchema } from "./limits";

/** A day: long enough for any session-length access token, short enough that a leak expires. */
export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 24 * 60 * 60;
/** Thirty days: a token living longer than this is a credential, not an access token. */
export const MAX_MAX_TOKEN_AGE_SECONDS = 30 * 24 * 60 * 60;
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 60;
/** Far above any honest client's mistakes; a higher ceiling would not limit anything. */
export const MAX_AUTH_FAILURES_PER_MINUTE = 10_000;

export interface Config {
  auth: {
    issuer: string;
    audience: string;
    signingKey: string | undefined;
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
  anthropic: { baseUrl: string; apiKey: string | undefined };
  openai: { baseUrl: string; apiKey: string | undefined };
  defaultLimits: Limits;
  allowPrivateUrls: boolean;
  /** How long a model call may take before it is abandoned and retried. */
  modelTimeoutMs: number;
  /**
   * The factor on every delay of the status-webhook retry schedule (notifications/schedule.ts):
   * 1 in production; tests set it lower to see hours of retries in seconds.
   */
  notifyRetryScale: number;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

const cache = new WeakMap<object, Config>();

export function loadConfig(env: Env): Config {
  const hit = cache.get(env);
  if (hit) return hit;
  const config = parseConfig(env);
  cache.set(env, config);
  return config;
}

export function parseConfig(env: Env): Config {
  return {
    auth: {
      issuer: env.AUTH_ISSUER || "https://agents.local",
      audience: env.AUTH_AUDIENCE || "agent-platform",
      signingKey: env.AUTH_SIGNING_KEY || undefined,
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
    model: env.MODEL || "claude-sonnet-4-5",
    anthropic: {
      baseUrl: trimSlash(env.LLM_BASE_URL || "https://api.anthropic.com"),
      apiKey: env.ANTHROPIC_API_KEY || undefined,
    },
    openai: {
      baseUrl: trimSlash(env.OPENAI_BASE_URL || "https://api.openai.com"),
      apiKey: env.OPENAI_API_KEY || undefined,
    },
    defaultLimits: parseDefaultLimits(env.DEFAULT_LIMITS),
    allowPrivateUrls: parseBoolean("ALLOW_PRIVATE_URLS", env.ALLOW_PRIVATE_URLS),
    modelTimeoutMs: parseTimeout(env.MODEL_TIMEOUT_MS),
    notifyRetryScale: parseScale("NOTIFY_RETRY_SCALE", env.NOTIFY_RETRY_SCALE),
  };
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
