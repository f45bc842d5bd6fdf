/**
 * The one place a credential may come in a URL: browsers cannot set headers on `EventSource` or
 * `WebSocket`, so the events route also takes `?access_token=`. Only a stream token
 * (`POST /v1/auth/stream-token`): it expires within 15 minutes and is good for the events route
 * alone, so one copied from a URL (histories, proxies, logs) cannot mint keys or call any other
 * route. An API key in a URL is refused, and the key is not looked up. Pure.
 */
import type { AuthFailure } from "../../auth/failure";
import { API_KEY_PREFIX } from "../../auth/api-keys";
import type { Principal } from "../../auth/principal";

export const ACCESS_TOKEN_PARAM = "access_token";
/** The routes that take a URL credential: `GET /v1/sessions/{id}/events`. */
const URL_TOKEN_PATH = /^\/v1\/sessions\/[^/]+\/events$/;

export type UrlCredential =
  /** No URL credential here (or this route takes none): the header decides. */
  | { kind: "none" }
  /** Authenticate with this `Authorization` value. */
  | { kind: "token"; authorization: string }
  /** A 401 for `reason`. */
  | { kind: "refused"; reason: AuthFailure }
  /** Both a header and a URL credential: RFC 6750 §2 allows one method per request. */
  | { kind: "ambiguous" };

/**
 * Whether an authenticated principal may be used where it came: a stream token on the events
 * route only, and in a URL nothing but a stream token. Null when it may.
 */
export function misplacedCredential(
  principal: Pick<Principal, "streamOnly">,
  method: string,
  path: string,
  fromUrl: boolean,
): AuthFailure | null {
  if (principal.streamOnly && !isEventsRoute(method, path)) return "stream_token_elsewhere";
  if (fromUrl && !principal.streamOnly) return "url_token_not_for_streams";
  return null;
}

function isEventsRoute(method: string, path: string): boolean {
  return method === "GET" && URL_TOKEN_PATH.test(path);
}

export function urlCredential(method: string, path: string, query: URLSearchParams, hasAuthorization: boolean): UrlCredential {
  if (!isEventsRoute(method, path)) return { kind: "none" };
  const tokens = query.getAll(ACCESS_TOKEN_PARAM);
  if (tokens.length === 0) return { kind: "none" };
  if (hasAuthorization) return { kind: "ambiguous" };
  const token = tokens[0]!;
  if (tokens.length > 1) return { kind: "refused", reason: "malformed_authorization" };
  if (token.startsWith(API_KEY_PREFIX)) return { kind: "refused", reason: "api_key_in_url" };
  return { kind: "token", authorization: `Bearer ${token}` };
}
