/**
 * The console's places, kept after `#` so the Worker serves one page and every view has a
 * link that survives a reload: `#/sessions?status=running`, `#/sessions/ses_…`, `#/agents?name=…`,
 * `#/agents/agt_…?from=1&to=2`, `#/memory/users.u_1?q=…&key=…`, `#/tenants`, `#/tenants/acme?status=…`,
 * `#/sessions?metadata[ticket]=T-1`, `#/sessions/new`, `#/api-keys`, `#/webhooks/wh_…`, `#/schedules/sch_…`,
 * `#/settings`, `#/credentials?subject=…`, `#/audit-log?action=…&actor=…&since=…&until=…`, `#/admin/audit-log?tenant=…`. Pure.
 */
import { isSessionStatus, type SessionStatus } from "./types";

export interface SessionFilter {
  status: SessionStatus | null;
  createdBy: string | null;
  cursor: string | null;
  /** Only sessions whose metadata holds every entry (`metadata[key]=value`, as the API takes it); absent: none. */
  metadata?: Record<string, string> | null;
}

/** The metadata entries a search names: `key=value` words; null when a word is not one. */
export function parseMetadataSearch(text: string): Record<string, string> | null {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const entries: Record<string, string> = {};
  for (const word of words) {
    const at = word.indexOf("=");
    if (at <= 0) return null;
    entries[word.slice(0, at)] = word.slice(at + 1);
  }
  return entries;
}

/** The search box's text for a filter's metadata. */
export function metadataSearchText(metadata: Record<string, string> | null | undefined): string {
  return Object.entries(metadata ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
}

export interface AgentFilter {
  /** Only agents of exactly this name. */
  name: string | null;
  includeArchived: boolean;
  cursor: string | null;
}

/** The two versions an agent's page compares; null: the latest, and the one before `to`. */
export interface VersionPair {
  from: number | null;
  to: number | null;
}

/**
 * A place in the tenant's memory: a namespace (none: the top), the words searched within it, and
 * the key of the item open in it. The segments are not checked here: the platform judges them.
 */
export interface MemoryPlace {
  namespace: string[];
  query: string | null;
  key: string | null;
}

/**
 * What an audit log shows: one action, one actor's entries, a time range (ISO 8601, as the API
 * takes it: `since` inclusive, `until` exclusive), and on the platform's log one tenant. Null: any.
 */
export interface AuditFilter {
  /** An action of the API's list; the page ignores any other (checked there, so the list stays out of the first view). */
  action: string | null;
  actor: string | null;
  since: string | null;
  until: string | null;
  tenantId: string | null;
}

export const NO_AUDIT_FILTER: AuditFilter = { action: null, actor: null, since: null, until: null, tenantId: null };

export type Route =
  | ({ view: "sessions" } & SessionFilter)
  | { view: "session"; id: string }
  | ({ view: "agents" } & AgentFilter)
  | ({ view: "agent"; id: string } & VersionPair)
  | ({ view: "memory" } & MemoryPlace)
  | { view: "tenants"; cursor: string | null }
  /** The tenant's usage and cost over `days` UTC days ending today. */
  | { view: "usage"; days: number }
  | ({ view: "tenant"; tenantId: string } & SessionFilter)
  | { view: "new_session" }
  | { view: "api_keys" }
  | { view: "webhooks" }
  | { view: "webhook"; id: string }
  | { view: "schedules" }
  | { view: "schedule"; id: string }
  /** The tenant's evals and datasets; one eval's results; one dataset's items; two evals compared. */
  | { view: "evals" }
  | { view: "eval"; id: string }
  | { view: "dataset"; id: string }
  | { view: "eval_compare"; a: string; b: string }
  | { view: "settings" }
  /** The tenant's own credentials (`subject` null), or one end user's. */
  | { view: "credentials"; subject: string | null }
  /** The tenant's audit log (`tenant`), or the platform's, every tenant's (`platform`). */
  | ({ view: "audit_log"; scope: "tenant" | "platform" } & AuditFilter)
  | { view: "not_found"; path: string };

/** Views whose address is one fixed path. */
const FIXED_PATHS = {
  new_session: "sessions/new",
  api_keys: "api-keys",
  webhooks: "webhooks",
  schedules: "schedules",
  evals: "evals",
  settings: "settings",
} as const;

export const HOME: Route = { view: "sessions", status: null, createdBy: null, cursor: null };

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, "");
  const [path = "", query = ""] = text.split("?", 2);
  const params = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean).map(safeDecode);
  if (parts.some((part) => part === null)) return { view: "not_found", path };
  const [first, second, ...rest] = parts as string[];
  if (rest.length > 0) return { view: "not_found", path };
  if (first === undefined) return HOME;
  const fixed = (Object.keys(FIXED_PATHS) as (keyof typeof FIXED_PATHS)[]).find((view) => FIXED_PATHS[view] === parts.join("/"));
  if (fixed) return { view: fixed };
  if (first === "audit-log" && second === undefined)
    return { view: "audit_log", scope: "tenant", ...auditFilterOf(params), tenantId: null };
  if (first === "admin" && second === "audit-log") return { view: "audit_log", scope: "platform", ...auditFilterOf(params) };
  if (first === "credentials" && second === undefined) return { view: "credentials", subject: params.get("subject") || null };
  if (first === "webhooks" && second !== undefined) return { view: "webhook", id: second };
  if (first === "schedules" && second !== undefined) return { view: "schedule", id: second };
  if (first === "evals" && second === "compare") return { view: "eval_compare", a: params.get("a") ?? "", b: params.get("b") ?? "" };
  if (first === "evals" && second !== undefined) return { view: "eval", id: second };
  if (first === "datasets" && second !== undefined) return { view: "dataset", id: second };
  if (first === "sessions" && second === undefined) return { view: "sessions", ...filterOf(params) };
  if (first === "sessions" && second !== undefined) return { view: "session", id: second };
  if (first === "agents" && second === undefined) return { view: "agents", ...agentFilterOf(params) };
  if (first === "agents" && second !== undefined)
    return { view: "agent", id: second, from: versionOf(params.get("from")), to: versionOf(params.get("to")) };
  if (first === "memory")
    return { view: "memory", namespace: second ? second.split(".") : [], query: params.get("q") || null, key: params.get("key") || null };
  if (first === "usage" && second === undefined) return { view: "usage", days: usageDays(params.get("days")) };
  if (first === "tenants" && second === undefined) return { view: "tenants", cursor: params.get("cursor") || null };
  if (first === "tenants" && second !== undefined) return { view: "tenant", tenantId: second, ...filterOf(params) };
  return { view: "not_found", path };
}

export function routeHref(route: Route): string {
  switch (route.view) {
    case "sessions":
      return `#/sessions${filterQuery(route)}`;
    case "session":
      return `#/sessions/${encodeURIComponent(route.id)}`;
    case "agents":
      return `#/agents${agentFilterQuery(route)}`;
    case "agent":
      return `#/agents/${encodeURIComponent(route.id)}${versionQuery(route)}`;
    case "memory":
      return `#/memory${memoryPath(route)}`;
    case "usage":
      return `#/usage${route.days === USAGE_DAYS ? "" : `?days=${route.days}`}`;
    case "tenants":
      return `#/tenants${route.cursor ? `?${new URLSearchParams({ cursor: route.cursor })}` : ""}`;
    case "tenant":
      return `#/tenants/${encodeURIComponent(route.tenantId)}${filterQuery(route)}`;
    case "new_session":
    case "api_keys":
    case "webhooks":
    case "schedules":
    case "evals":
    case "settings":
      return `#/${FIXED_PATHS[route.view]}`;
    case "eval":
      return `#/evals/${encodeURIComponent(route.id)}`;
    case "dataset":
      return `#/datasets/${encodeURIComponent(route.id)}`;
    case "eval_compare":
      return `#/evals/compare?${new URLSearchParams({ a: route.a, b: route.b })}`;
    case "audit_log":
      return `#/${route.scope === "tenant" ? "audit-log" : "admin/audit-log"}${auditFilterQuery(route.scope === "tenant" ? { ...route, tenantId: null } : route)}`;
    case "credentials":
      return `#/credentials${route.subject ? `?${new URLSearchParams({ subject: route.subject })}` : ""}`;
    case "webhook":
      return `#/webhooks/${encodeURIComponent(route.id)}`;
    case "schedule":
      return `#/schedules/${encodeURIComponent(route.id)}`;
    case "not_found":
      return `#${route.path}`;
  }
}

function filterOf(params: URLSearchParams): SessionFilter {
  const status = params.get("status");
  const metadata: Record<string, string> = {};
  for (const [name, value] of params) {
    const key = /^metadata\[(.+)\]$/.exec(name)?.[1];
    if (key !== undefined) metadata[key] = value;
  }
  return {
    status: status !== null && isSessionStatus(status) ? status : null,
    createdBy: params.get("created_by") || null,
    cursor: params.get("cursor") || null,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

function filterQuery(filter: SessionFilter): string {
  const params = new URLSearchParams();
  if (filter.status) params.set("status", filter.status);
  if (filter.createdBy) params.set("created_by", filter.createdBy);
  for (const [key, value] of Object.entries(filter.metadata ?? {})) params.set(`metadata[${key}]`, value);
  if (filter.cursor) params.set("cursor", filter.cursor);
  const query = params.toString();
  return query ? `?${query}` : "";
}

function agentFilterOf(params: URLSearchParams): AgentFilter {
  return { name: params.get("name") || null, includeArchived: params.get("archived") === "1", cursor: params.get("cursor") || null };
}

function agentFilterQuery(filter: AgentFilter): string {
  const params = new URLSearchParams();
  if (filter.name) params.set("name", filter.name);
  if (filter.includeArchived) params.set("archived", "1");
  if (filter.cursor) params.set("cursor", filter.cursor);
  const query = params.toString();
  return query ? `?${query}` : "";
}

function auditFilterOf(params: URLSearchParams): AuditFilter {
  const time = (name: string) => {
    const text = params.get(name);
    return text && !Number.isNaN(Date.parse(text)) ? text : null;
  };
  return {
    action: params.get("action") || null,
    actor: params.get("actor") || null,
    since: time("since"),
    until: time("until"),
    tenantId: params.get("tenant") || null,
  };
}

function auditFilterQuery(filter: AuditFilter): string {
  const params = new URLSearchParams();
  if (filter.tenantId) params.set("tenant", filter.tenantId);
  if (filter.action) params.set("action", filter.action);
  if (filter.actor) params.set("actor", filter.actor);
  if (filter.since) params.set("since", filter.since);
  if (filter.until) params.set("until", filter.until);
  const query = params.toString();
  return query ? `?${query}` : "";
}

/** The usage page's range when the address names none, in days. */
export const USAGE_DAYS = 30;

/** 1–400 days (the days the platform keeps), else the default. */
function usageDays(text: string | null): number {
  const days = Number(text);
  return text !== null && /^[1-9][0-9]{0,2}$/.test(text) && days <= 400 ? days : USAGE_DAYS;
}

/** A version number in an address: a whole number from 1, else none (the page's default). */
function versionOf(text: string | null): number | null {
  if (text === null || !/^[1-9][0-9]{0,8}$/.test(text)) return null;
  return Number(text);
}

function versionQuery(pair: VersionPair): string {
  const params = new URLSearchParams();
  if (pair.from !== null) params.set("from", String(pair.from));
  if (pair.to !== null) params.set("to", String(pair.to));
  const query = params.toString();
  return query ? `?${query}` : "";
}

function memoryPath(place: MemoryPlace): string {
  const params = new URLSearchParams();
  if (place.query) params.set("q", place.query);
  if (place.key) params.set("key", place.key);
  const query = params.toString();
  return `${place.namespace.length > 0 ? `/${encodeURIComponent(place.namespace.join("."))}` : ""}${query ? `?${query}` : ""}`;
}

function safeDecode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
