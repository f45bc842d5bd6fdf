/**
 * How a tenant's sessions are spread over shard objects. A layout is one generation: its number
 * and its shard count. Changing the count starts a new generation and keeps the old ones, so a
 * session never moves: its shard is fixed at its creation from the generation then in force, and
 * every read covers every generation. A count of 1 keeps the generation's sessions on the tenant
 * index itself, as before sharding.
 */

/** The most shards one generation may have. */
export const MAX_SHARDS = 64;
/** The most shard objects every generation together may have: each read of the tenant's sessions asks each of them. */
export const MAX_TOTAL_SHARDS = 256;

export interface ShardLayout {
  generation: number;
  shards: number;
}

/** Where one session's row, usage and run slot live: shard `k` of `generation` (of `shards`). */
export interface ShardRef extends ShardLayout {
  k: number;
}

/** A tenant that never changed its count: every session on the index. */
export const UNSHARDED: ShardLayout = { generation: 0, shards: 1 };

/** FNV-1a (32 bits) of the text: a spread that is the same in every isolate and every version. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The shard a new session goes to under `layout`; null: the tenant index itself. */
export function shardFor(sessionId: string, layout: ShardLayout): ShardRef | null {
  if (layout.shards <= 1) return null;
  return { generation: layout.generation, shards: layout.shards, k: fnv1a(sessionId) % layout.shards };
}

export function isShardLayout(value: unknown): value is ShardLayout {
  if (typeof value !== "object" || value === null) return false;
  const { generation, shards } = value as Record<string, unknown>;
  return Number.isSafeInteger(generation) && (generation as number) >= 0 && Number.isSafeInteger(shards) && (shards as number) >= 1;
}

export function isShardRef(value: unknown): value is ShardRef {
  if (!isShardLayout(value)) return false;
  const { k } = value as unknown as Record<string, unknown>;
  return Number.isSafeInteger(k) && (k as number) >= 0 && (k as number) < value.shards;
}

/** The shard's name within its tenant (`<generation>/<k>`): its key in the index's lease ledger. */
export function shardKey(ref: ShardRef): string {
  return `${ref.generation}/${ref.k}`;
}

/** Every shard object of every generation that had more than one (the index holds the rest). */
export function everyShard(layouts: readonly ShardLayout[]): ShardRef[] {
  return layouts.flatMap((layout) =>
    layout.shards <= 1
      ? []
      : Array.from({ length: layout.shards }, (_, k) => ({ generation: layout.generation, shards: layout.shards, k })),
  );
}
