/**
 * Agent versions never change once written, so a gateway isolate keeps the ones it read: a
 * session's creation then asks the store only which version to run (aliases move, agents are
 * archived: read fresh) and not for the definition again. Bounded in entries and in characters;
 * the least recently used version makes room.
 */
import type { AgentDefinition } from "./types";

export const MAX_CACHED_VERSIONS = 256;
/** About 8 MiB of definitions as JSON text, at two bytes a character. */
export const MAX_CACHED_CHARS = 4 * 1024 * 1024;
/** Versions of one agent a resolve names as held (the store's cap is higher). */
export const MAX_HELD_PER_AGENT = 16;

interface Entry {
  definition: AgentDefinition;
  chars: number;
}

export class VersionCache {
  readonly #entries = new Map<string, Entry>();
  #chars = 0;

  constructor(
    readonly maxEntries = MAX_CACHED_VERSIONS,
    readonly maxChars = MAX_CACHED_CHARS,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  get(tenantId: string, agentId: string, version: number): AgentDefinition | undefined {
    const key = keyOf(tenantId, agentId, version);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.definition;
  }

  /** The versions of one agent held here, newest first, at most `MAX_HELD_PER_AGENT`. */
  held(tenantId: string, agentId: string): number[] {
    const prefix = keyOf(tenantId, agentId, 0).slice(0, -1);
    const versions: number[] = [];
    for (const key of this.#entries.keys()) if (key.startsWith(prefix)) versions.push(Number(key.slice(prefix.length)));
    return versions.sort((a, b) => b - a).slice(0, MAX_HELD_PER_AGENT);
  }

  put(tenantId: string, agentId: string, version: number, definition: AgentDefinition): void {
    const chars = JSON.stringify(definition).length;
    if (chars > this.maxChars) return;
    const key = keyOf(tenantId, agentId, version);
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#chars -= old.chars;
    }
    this.#entries.set(key, { definition, chars });
    this.#chars += chars;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.maxEntries && this.#chars <= this.maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= entry.chars;
    }
  }
}

/** Tenant ids and agent ids hold no newline, so the key is unambiguous. */
function keyOf(tenantId: string, agentId: string, version: number): string {
  return `${tenantId}\n${agentId}\n${version}`;
}
