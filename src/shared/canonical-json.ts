/**
 * One text per meaning for a JSON value: object keys sorted, arrays in order. Two agent definitions
 * are the same version exactly when their canonical texts are equal (a PATCH that only reorders keys
 * makes no new version); two scored values are equal exactly when theirs are. Pure.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    // Defined, not assigned: a key named `__proto__` stays an own property.
    if (item !== undefined)
      Object.defineProperty(out, key, { value: sortKeys(item), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
