/** Named bounds of memory items and queries, shared by the routes, the tools and the store. */

export const MAX_KEY_CHARS = 256;
/** A value as JSON text: 64 KiB. */
export const MAX_VALUE_CHARS = 64 * 1024;
export const MIN_TTL_SECONDS = 60;
/** Ten years. */
export const MAX_TTL_SECONDS = 315_360_000;
export const MAX_QUERY_CHARS = 1_000;
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 100;
export const MAX_SEARCH_OFFSET = 10_000;
/** A top-level field a filter names: written into a JSON path, so only these characters. */
export const FILTER_FIELD_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_FILTER_FIELDS = 16;
import { MAX_GRANT_NAMESPACES } from "../session-config/memory-namespace";

export { MAX_GRANT_NAMESPACES };
/** The namespaces a session may be granted, and so the prefixes one search may cover. */
export const MAX_SEARCH_PREFIXES = MAX_GRANT_NAMESPACES;
