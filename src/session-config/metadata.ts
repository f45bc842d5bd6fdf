/**
 * The bounds of a session's metadata (string labels for the caller's own use): the create body's
 * schema and the tenant index, which keeps the entries to list sessions by, read them here.
 */
export const MAX_METADATA_ENTRIES = 32;
export const MAX_METADATA_KEY_CHARS = 64;
export const MAX_METADATA_VALUE_CHARS = 512;
/** Entries one list request may filter by: each is one indexed lookup. */
export const MAX_METADATA_FILTERS = 4;
