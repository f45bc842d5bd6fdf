/**
 * The console's places, kept after `#` so the Worker serves one page and every view has a
 * link that survives a reload: `#/sessions?status=running`, `#/sessions/ses_…`, `#/tenants`,
 * `#/tenants/acme?status=…`. Pure.
 */
import { isSessionStatus, type SessionStatus } from "./types";

export interface SessionFilter {
  status: SessionStatus | null;
  createdBy: string | null;
  cursor: string | null;
}

export type Route =
  | ({ view: "sessions" } & SessionFilter)
  | { view: "session"; id: string }
  | { view: "tenants"; cursor: string | null }
  | ({ view: "tenant"; tenantId: string } & SessionFilter)
  | { view: "not_found"; path: string };

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
  if (first === "sessions" && second === undefined) return { view: "sessions", ...filterOf(params) };
  if (first === "sessions" && second !== undefined) return { view: "session", id: second };
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
    case "tenants":
      return `#/tenants${route.cursor ? `?${new URLSearchParams({ cursor: route.cursor })}` : ""}`;
    case "tenant":
      return `#/tenants/${encodeURIComponent(route.tenantId)}${filterQuery(route)}`;
    case "not_found":
      return `#${route.path}`;
  }
}

function filterOf(params: URLSearchParams): SessionFilter {
  const status = params.get("status");
  return {
    status: status !== null && isSessionStatus(status) ? status : null,
    createdBy: params.get("created_by") || null,
    cursor: params.get("cursor") || null,
  };
}

function filterQuery(filter: SessionFilter): string {
  const params = new URLSearchParams();
  if (filter.status) params.set("status", filter.status);
  if (filter.createdBy) params.set("created_by", filter.createdBy);
  if (filter.cursor) params.set("cursor", filter.cursor);
  const query = params.toString();
  return query ? `?${query}` : "";
}

function safeDecode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
