/**
 * Where a JSON Schema holds subschemas, in the validator's own terms: every object it may
 * evaluate as a schema (also through `$ref`, which resolves only to objects it indexed) is
 * reached here, so no `pattern` or `format` can hide from the rewrite in `validator.ts`.
 */
import { ignoredKeyword, schemaArrayKeyword, schemaMapKeyword } from "@cfworker/json-schema";

export type SchemaPath = readonly string[];

function has(table: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(table, key);
}

/**
 * Calls `visit` on every schema object, depth first, with its path from the root. It follows
 * the validator's indexing (`dereference`): arrays only under array keywords, the members of
 * map keywords (`properties`, `$defs`, …), and any other non-data keyword as one subschema.
 */
export function walkSchema(schema: unknown, visit: (node: Record<string, unknown>, path: SchemaPath) => void, path: SchemaPath = []): void {
  if (!isObject(schema)) return;
  visit(schema, path);
  for (const [key, value] of Object.entries(schema)) {
    if (has(ignoredKeyword, key)) continue;
    if (Array.isArray(value)) {
      if (has(schemaArrayKeyword, key)) value.forEach((item, i) => walkSchema(item, visit, [...path, key, String(i)]));
    } else if (has(schemaMapKeyword, key)) {
      if (isObject(value)) for (const [name, sub] of Object.entries(value)) walkSchema(sub, visit, [...path, key, name]);
    } else {
      walkSchema(value, visit, [...path, key]);
    }
  }
}

/**
 * A copy of `schema` in which every schema object is replaced by `rewrite(copy)`, where the
 * copy's subschemas are already rewritten. Data keywords (`const`, `enum`, `default`) are shared.
 */
export function mapSchema(schema: unknown, rewrite: (node: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (!isObject(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (has(ignoredKeyword, key)) setOwn(copy, key, value);
    else if (Array.isArray(value)) setOwn(copy, key, has(schemaArrayKeyword, key) ? value.map((item) => mapSchema(item, rewrite)) : value);
    else if (has(schemaMapKeyword, key) && isObject(value)) {
      setOwn(copy, key, Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, mapSchema(sub, rewrite)])));
    } else setOwn(copy, key, mapSchema(value, rewrite));
  }
  return rewrite(copy);
}

/** An own property even for the key `__proto__`, which plain assignment would take as the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
