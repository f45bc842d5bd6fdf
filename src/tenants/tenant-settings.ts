/**
 * A tenant's own settings, set by its admins (`PUT /v1/tenant/settings`): the allowed origins of
 * webhook tools, the session retention, where traces go and what is redacted. Kept as one key-value entry; absent means "nothing
 * set", which is what storage written before settings existed reads as, and a field absent from
 * an older entry reads as its default, so no migration is needed.
 */
import { MAX_ALLOWED_ORIGINS, MAX_ORIGIN_CHARS } from "../egress/allowed-origins";
import { MAX_SESSION_RETENTION_DAYS, MIN_SESSION_RETENTION_DAYS } from "../limits";
import { isValidRetentionDays } from "../session-config/retention";
import { MASKED_VALUE } from "../shared/secret-mask";
import { parseRedaction } from "../shared/redaction/settings";
import type { TracesSettings } from "../session-config/trace-types";
import type { TenantSettings } from "./types";

const SETTINGS_KEY = "settings";

export const DEFAULT_SETTINGS: TenantSettings = { webhook_origins: null, session_retention_days: null, traces: null };

export function readSettings(kv: SyncKvStorage): TenantSettings {
  return { ...DEFAULT_SETTINGS, ...kv.get<Partial<TenantSettings>>(SETTINGS_KEY) };
}

/** Replaces the settings as a whole (the route is a PUT). */
export function writeSettings(kv: SyncKvStorage, settings: TenantSettings): void {
  kv.put(SETTINGS_KEY, settings);
}

/**
 * The shape check of the object's RPC boundary. The gateway has normalized each origin already
 * (it knows whether private URLs are allowed); this refuses anything that is not a list of them.
 */
export function parseSettings(value: unknown): TenantSettings {
  if (typeof value !== "object" || value === null) throw new TypeError("settings must be an object");
  const retention = (value as { session_retention_days?: unknown }).session_retention_days ?? null;
  if (!isValidRetentionDays(retention)) {
    throw new TypeError(
      `session_retention_days must be null or an integer from ${MIN_SESSION_RETENTION_DAYS} to ${MAX_SESSION_RETENTION_DAYS}`,
    );
  }
  const traces = parseTraces((value as { traces?: unknown }).traces ?? null);
  // Kept only when set, so settings that never had it stay as they were stored.
  const redaction = parseRedaction((value as { redaction?: unknown }).redaction ?? null);
  return {
    webhook_origins: parseOrigins((value as { webhook_origins?: unknown }).webhook_origins),
    session_retention_days: retention,
    traces,
    ...(redaction ? { redaction } : {}),
  };
}

function parseOrigins(origins: unknown): string[] | null {
  if (origins === null) return null;
  if (!Array.isArray(origins) || origins.length > MAX_ALLOWED_ORIGINS)
    throw new TypeError(`webhook_origins must be null or a list of at most ${MAX_ALLOWED_ORIGINS}`);
  for (const origin of origins) {
    if (typeof origin !== "string" || origin.length === 0 || origin.length > MAX_ORIGIN_CHARS)
      throw new TypeError("webhook_origins must hold origins");
    if (new URL(origin).origin !== origin) throw new TypeError(`webhook_origins: ${origin} is not a normalized origin`);
  }
  return [...new Set(origins as string[])];
}

/** `traces` at the RPC boundary: the gateway checked the endpoint against the URL guard and the origins. */
function parseTraces(value: unknown): TracesSettings | null {
  if (value === null) return null;
  if (typeof value !== "object") throw new TypeError("traces must be null or an object");
  const { endpoint, headers, capture_content: capture } = value as Record<string, unknown>;
  if (typeof endpoint !== "string" || !URL.canParse(endpoint)) throw new TypeError("traces.endpoint must be a URL");
  if (
    headers !== undefined &&
    (typeof headers !== "object" || headers === null || Object.values(headers).some((v) => typeof v !== "string"))
  ) {
    throw new TypeError("traces.headers must map names to strings");
  }
  if (capture !== undefined && typeof capture !== "boolean") throw new TypeError("traces.capture_content must be a boolean");
  return { endpoint, ...(headers ? { headers: { ...(headers as Record<string, string>) } } : {}), capture_content: capture === true };
}

/** The settings as every response and the audit log show them: the trace collector's header values masked. */
export function maskSettings(settings: TenantSettings): TenantSettings {
  if (!settings.traces?.headers) return { ...settings, traces: settings.traces ?? null };
  return {
    ...settings,
    traces: { ...settings.traces, headers: Object.fromEntries(Object.keys(settings.traces.headers).map((name) => [name, MASKED_VALUE])) },
  };
}

/** The settings as the routes answer them: masked, and every field named (`redaction` is stored only when set). */
export function shownSettings(settings: TenantSettings): Required<TenantSettings> {
  return { ...maskSettings(settings), redaction: settings.redaction ?? null };
}
