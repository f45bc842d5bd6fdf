/**
 * `?metadata[<key>]=<value>` on a session list: the entries every listed session's metadata must
 * hold (OpenAPI `deepObject`, what openapi-fetch sends for an object). The validator sees only
 * flat names, so the entries are read here from the query's own names. Pure.
 */
import { MAX_METADATA_FILTERS, MAX_METADATA_KEY_CHARS, MAX_METADATA_VALUE_CHARS } from "../../session-config/metadata";

const ENTRY_NAME = /^metadata\[(.*)\]$/s;

export type MetadataFilter =
  { ok: true; entries: Record<string, string> | null } | { ok: false; errors: { path: string; message: string }[] };

/** The filter in `queries` (each name with all its values), or the problems with it. */
export function metadataFilterOf(queries: Record<string, string[]>): MetadataFilter {
  const entries: Record<string, string> = {};
  const errors: { path: string; message: string }[] = [];
  for (const [name, values] of Object.entries(queries)) {
    const key = ENTRY_NAME.exec(name)?.[1];
    if (key === undefined) continue;
    const path = `query.${name}`;
    if (key.length === 0 || key.length > MAX_METADATA_KEY_CHARS)
      errors.push({ path, message: `A metadata key has 1 to ${MAX_METADATA_KEY_CHARS} characters.` });
    else if (values.length !== 1) errors.push({ path, message: "Give each metadata key once." });
    else if ((values[0] ?? "").length > MAX_METADATA_VALUE_CHARS)
      errors.push({ path, message: `A metadata value has at most ${MAX_METADATA_VALUE_CHARS} characters.` });
    else entries[key] = values[0] ?? "";
  }
  if (errors.length === 0 && Object.keys(entries).length > MAX_METADATA_FILTERS) {
    errors.push({ path: "query.metadata", message: `Filter by at most ${MAX_METADATA_FILTERS} metadata entries.` });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, entries: Object.keys(entries).length > 0 ? entries : null };
}
