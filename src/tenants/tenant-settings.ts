/**
 * A tenant's own settings, set by its admins (`PUT /v1/tenant/settings`): the allowed origins of
 * webhook tools and the session retention. Kept as one key-value entry; absent means "nothing
 * set", which is what storage written before settings existed reads as, and a field absent from
 * an older entry reads as its default, so no migration is needed.
 */
import { MAX_ALLOWED_ORIGINS, MAX_ORIGIN_CHARS } from "../egress/allowed-origins";
import { isValidRetentionDays, MAX_SESSION_RETENTION_DAYS, MIN_SESSION_RETENTION_DAYS } from "../lifecycle/retention";
import type { TenantSettings } from "./types";

const SETTINGS_KEY = "settings";

export const DEFAULT_SETTINGS: TenantSettings = { webhook_origins: null, session_retention_days: null };

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
    throw new TypeError(`session_retention_days must be null or an integer from ${MIN_SESSION_RETENTION_DAYS} to ${MAX_SESSION_RETENTION_DAYS}`);
  }
  return { webhook_origins: parseOrigins((value as { webhook_origins?: unknown }).webhook_origins), session_retention_days: retention };
}

function parseOrigins(origins: unknown): string[] | null {
  if (origins === null) return null;
  if (!Array.isArray(origins) || origins.length > MAX_ALLOWED_ORIGINS) throw new TypeError(`webhook_origins must be null or a list of at most ${MAX_ALLOWED_ORIGINS}`);
  for (const origin of origins) {
    if (typeof origin !== "string" || origin.length === 0 || origin.length > MAX_ORIGIN_CHARS) throw new TypeError("webhook_origins must hold origins");
    if (new URL(origin).origin !== origin) throw new TypeError(`webhook_origins: ${origin} is not a normalized origin`);
  }
  return [...new Set(origins as string[])];
}
