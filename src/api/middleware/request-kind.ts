/**
 * Which routes are counted in the admin lane of the rate limit (see src/tenants/admission.ts):
 * the ones that stop abuse, so they keep working while another key of the tenant floods; and
 * the minting of end-user tokens and sessions' exports, each counted in a window of its own besides the interactive ones. Named
 * by their route definitions, so a route that moves takes its lane with it. Whether the caller
 * is an admin is the tenant index's to judge (an API key's scopes are read there).
 */
import type { RequestKind } from "../../tenants/types";
import * as createKey from "../api-keys/create";
import * as listKeys from "../api-keys/list";
import * as revokeKey from "../api-keys/revoke";
import * as suspend from "../admin/suspend";
import * as unsuspend from "../admin/unsuspend";
import * as issueEndUserToken from "../end-users/issue-token";
import * as exportSession from "../sessions/export";

interface RouteRef {
  method: string;
  path: string;
}

const ADMIN_ROUTES: readonly [RequestKind, readonly RouteRef[]][] = [
  ["key_management", [createKey.route, listKeys.route, revokeKey.route]],
  ["suspension", [suspend.route, unsuspend.route]],
  // Not an admin lane: minting has a window of its own on top of the interactive ones.
  ["end_user_token", [issueEndUserToken.route]],
  // Nor this: an export is interactive, and counted in the tenant's export window too.
  ["export", [exportSession.route]],
];

/** `/v1/api-keys/{key_id}` → a pattern for one path segment in place of each parameter. */
export function pathPattern(path: string): RegExp {
  const escaped = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join("[^/]+")}$`);
}

const MATCHERS = ADMIN_ROUTES.flatMap(([kind, routes]) =>
  routes.map((route) => ({ kind, method: route.method.toUpperCase(), pattern: pathPattern(route.path) })),
);

/** Pure: the kind of a request to `method` `path`, or undefined for an interactive one. */
export function requestKind(method: string, path: string): RequestKind | undefined {
  const upper = method.toUpperCase();
  return MATCHERS.find((matcher) => matcher.method === upper && matcher.pattern.test(path))?.kind;
}
