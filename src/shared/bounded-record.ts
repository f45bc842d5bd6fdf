/**
 * A record of caller-given entries whose key rules and entry count the OpenAPI document states
 * from the very schemas and number that check them: zod's records check keys but their generated
 * schema drops them, and zod has no entry count of its own.
 */
import { z } from "@hono/zod-openapi";

export function boundedRecord<V extends z.ZodType>(key: z.ZodString, value: V, maxEntries: number, message: string) {
  // The key's JSON Schema (its length and pattern; refinements are not expressible and stay in zod).
  const { $schema: _, ...propertyNames } = z.toJSONSchema(key, { io: "input" }) as Record<string, unknown>;
  // `propertyNames` is JSON Schema 2020-12 (OpenAPI 3.1); the generator's metadata type predates it.
  const documented = { maxProperties: maxEntries, propertyNames } as { maxProperties: number };
  return z
    .record(key, value)
    .refine((record) => Object.keys(record).length <= maxEntries, message)
    .openapi(documented);
}
