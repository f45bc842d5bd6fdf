/**
 * A tenant's own settings, set by its admins (`PUT /v1/tenant/settings`): today the allowed
 * origins of webhook tools. Kept as one key-value entry; absent means "nothing set", which is
 * what storage written before settings existed reads as, so no migration is needed.
 */
import { MAX_ALLOWED_ORIGINS, MAX_ORIGIN_CHARS } from "../egress/allowed-origins";
import type { TenantSettings } from "./types";

const SETTINGS_KEY = "settings";

export const DEFAULT_SETTINGS: TenantSettings = { webhook_origins: null };

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
  const origins = (value as { webhook_origins?: unknown }).webhook_origins;
  if (origins === null) return { webhook_origins: null };
  if (!Array.isArray(origins) || origins.length > MAX_ALLOWED_ORIGINS) throw new TypeError(`webhook_origins must be null or a list of at most ${MAX_ALLOWED_ORIGINS}`);
  for (const origin of origins) {
    if (typeof origin !== "string" || origin.length === 0 || origin.length > MAX_ORIGIN_CHARS) throw new TypeError("webhook_origins must hold origins");
    if (new URL(origin).origin !== origin) throw new TypeError(`webhook_origins: ${origin} is not a normalized origin`);
  }
  return { webhook_origins: [...new Set(origins as string[])] };
}
