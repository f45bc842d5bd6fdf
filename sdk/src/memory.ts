/**
 * Memory: namespaces as the query string spells them, and reading an item that may not exist.
 */
import type { PlatformClient } from "./client.ts";
import { expectData, PlatformError } from "./errors.ts";
import type { MemoryItem } from "./types.ts";

const SEGMENT = /^[A-Za-z0-9_@:-]{1,64}$/;

/** `["users", "u_123"]` as `users.u_123`, checked: 1-4 segments of letters, digits, `_`, `@`, `:` or `-`. */
export function namespaceParam(namespace: readonly string[]): string {
  if (namespace.length < 1 || namespace.length > 4 || !namespace.every((segment) => SEGMENT.test(segment))) {
    throw new RangeError(`not a memory namespace: ${JSON.stringify(namespace)}`);
  }
  return namespace.join(".");
}

/** The live item, or null when there is none (a 404); any other failure throws a `PlatformError`. */
export async function getMemoryItem(client: PlatformClient, namespace: readonly string[], key: string): Promise<MemoryItem | null> {
  try {
    return await expectData(client.GET("/v1/memory/items", { params: { query: { namespace: namespaceParam(namespace), key } } }));
  } catch (error) {
    if (error instanceof PlatformError && error.status === 404) return null;
    throw error;
  }
}
