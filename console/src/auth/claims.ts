/**
 * What the console reads from a credential before the platform judges it: which kind it is,
 * and a JWT's subject, scopes and expiry, to choose the views to offer and when to renew.
 * Nothing here is trusted for access: the platform checks every request. Pure.
 */
import { API_KEY_SCOPES } from "../types";

export type CredentialKind = "api_key" | "jwt";
export type Scope =
  | "sessions:read"
  | "sessions:write"
  | "agents:write"
  | "memory:read"
  | "memory:write"
  | "end_users:issue"
  | "tenant:admin"
  | "platform:admin";

const SCOPES: readonly Scope[] = [...API_KEY_SCOPES, "platform:admin"];
/** The platform's API key shape: `ak_<tenant>.<key id>.<secret>.<tag>` (keys issued before tags existed have none). */
const API_KEY_SHAPE = /^ak_[A-Za-z0-9_-]+\.key_[0-9a-f]+\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)?$/;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Renew an exchanged token this long before it expires, so no request races its expiry. */
export const RENEW_MARGIN_MS = 60_000;

export function credentialKind(text: string): CredentialKind | null {
  const value = text.trim();
  if (API_KEY_SHAPE.test(value)) return "api_key";
  if (JWT_SHAPE.test(value)) return "jwt";
  return null;
}

export interface Claims {
  subject: string | null;
  scopes: Scope[];
  /** Epoch ms, from `exp`; null when the token has none. */
  expiresAt: number | null;
}

/** A JWT's payload, unverified; null when it is not a JWT with a JSON object payload. */
export function readClaims(token: string): Claims | null {
  const part = token.trim().split(".")[1];
  if (part === undefined || !JWT_SHAPE.test(token.trim())) return null;
  let payload: unknown;
  try {
    const base64 = part
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .padEnd(Math.ceil(part.length / 4) * 4, "=");
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    payload = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return null;
  const claims = payload as Record<string, unknown>;
  return {
    subject: typeof claims.sub === "string" ? claims.sub : null,
    scopes: parseScopes(claims.scope ?? claims.scp),
    expiresAt: typeof claims.exp === "number" && Number.isFinite(claims.exp) ? claims.exp * 1000 : null,
  };
}

/** The known scopes of a space-separated `scope` or an `scp` array. */
export function parseScopes(value: unknown): Scope[] {
  const items = typeof value === "string" ? value.split(/\s+/) : Array.isArray(value) ? value : [];
  return SCOPES.filter((scope) => items.includes(scope));
}

/** What the console offers; the same grants as the platform's scope table. */
export interface Powers {
  read: boolean;
  write: boolean;
  /** Changing agents: new versions, aliases, archival (reading them needs only `read`). */
  agentsWrite: boolean;
  /** The tenant's long-term memory: browsing and searching it, and (`memoryWrite`) deleting items. */
  memoryRead: boolean;
  memoryWrite: boolean;
  /** Every session of the tenant, and its bulk cancel. */
  tenantAdmin: boolean;
  /** Every tenant, their limits and suspension. */
  platformAdmin: boolean;
}

export function powersOf(scopes: readonly Scope[]): Powers {
  const platformAdmin = scopes.includes("platform:admin");
  const tenantAdmin = platformAdmin || scopes.includes("tenant:admin");
  return {
    read: tenantAdmin || scopes.includes("sessions:read"),
    write: tenantAdmin || scopes.includes("sessions:write"),
    agentsWrite: tenantAdmin || scopes.includes("agents:write"),
    memoryRead: tenantAdmin || scopes.includes("memory:read"),
    memoryWrite: tenantAdmin || scopes.includes("memory:write"),
    tenantAdmin,
    platformAdmin,
  };
}

export function isExpired(expiresAt: number | null, now: number): boolean {
  return expiresAt !== null && expiresAt <= now;
}

/** Whether an exchanged token should be renewed now. */
export function renewDue(expiresAt: number | null, now: number, margin = RENEW_MARGIN_MS): boolean {
  return expiresAt !== null && expiresAt - now <= margin;
}
