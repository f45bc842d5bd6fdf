/**
 * Parses the environment once into a typed `Config`. A value that is present but
 * malformed is a start-up error with a clear message, never a silent default.
 */
import type { Env } from "./env";
import { BUILTIN_DEFAULT_LIMITS, type Limits, MODEL_CALL_TIMEOUT_MS, partialLimitsSchema } from "./limits";

export interface Config {
  auth: {
    issuer: string;
    audience: string;
    signingKey: string | undefined;
    jwksUrl: string | undefined;
    externalIssuer: string | undefined;
    externalAudience: string | undefined;
    tenantClaim: string;
  };
  model: string;
  anthropic: { baseUrl: string; apiKey: string | undefined };
  openai: { baseUrl: string; apiKey: string | undefined };
  defaultLimits: Limits;
  allowPrivateUrls: boolean;
  /** How long a model call may take before it is abandoned and retried. */
  modelTimeoutMs: number;
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
  };
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
