/**
 * Memory: latency of the memory routes as one tenant's store grows to 1,000, 10,000 and 100,000
 * items (put, get, and search with a query, across the tenant, with a filter), with its storage
 * and the time to fill it. The items come from a seeded corpus (`support/memory-corpus.ts`) and
 * are written in batches by the benchmark build's fill route; every measured request goes
 * through the public API.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { uniqueName } from "../../test/e2e/support/stack";
import { seededRandom } from "../../test/e2e/support/random";
import { load1 } from "../support/machine";
import { CORPUS_SEED, corpusItem, searchCase, VOCABULARY } from "../support/memory-corpus";
import type { Table } from "../support/report";
import { fmt, fmtSpread, median, quantile, spread } from "../support/stats";
import { BENCH_SUBJECT, retryClosedConnection, type World } from "../world";

export const MEMORY_SIZES = [1_000, 10_000, 100_000] as const;
/** Items per call of the fill route: one call of the store writes them in one commit. */
const FILL_BATCH = 5_000;
/** Timed requests of each kind per round, at each size, after `WARMUP` untimed ones. */
const SAMPLES = 200;
const WARMUP = 20;
const REQUEST_TIMEOUT_MS = 30_000;

export const REQUEST_KINDS = [
  "put, new item",
  "put, new version",
  "get",
  "search, one user",
  "search, whole tenant",
  "search, whole tenant with a filter",
  "filter only, one user",
  "filter only, whole tenant",
  "search, whole tenant, offset 490",
] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

interface Round {
  latencies: Record<RequestKind, number[]>;
  /** Items each search answered with (at most its limit of 10). */
  results: Partial<Record<RequestKind, number[]>>;
  load: number;
}

export interface SizeResult {
  size: number;
  /** Seconds to write the items added since the last size, through the fill route. */
  fillSeconds: number;
  filled: number;
  /** Pages in use of the store's database, by what they hold. */
  bytes: { items: number; versions: number; fullText: number; other: number };
  /** For each search's query: how many items hold its commonest word. */
  commonestWordItems: number[];
  rounds: Round[];
}

export interface MemoryResult {
  sizes: SizeResult[];
}

export async function measureMemory(world: World, reps: number): Promise<MemoryResult> {
  const tenant = uniqueName("bench-memory");
  const token = await world.token(tenant, ["memory:read", "memory:write"]);
  const api = apiOf(world, token);
  const counts = new WordCounts();
  const result: MemoryResult = { sizes: [] };
  let written = 0;
  let searches = 0;
  for (const size of MEMORY_SIZES) {
    // The puts of the last size wrote past it; the next size is filled up to exactly its count.
    const from = written;
    const started = performance.now();
    while (written < size) {
      const batch = Array.from({ length: Math.min(FILL_BATCH, size - written) }, (_, k) => corpusItem(written + k));
      await fill(world, tenant, batch);
      written += batch.length;
      for (const item of batch) counts.add(item);
    }
    const fillSeconds = (performance.now() - started) / 1000;
    const sizeResult: SizeResult = {
      size,
      fillSeconds,
      filled: written - from,
      bytes: storeBytes(world),
      commonestWordItems: [],
      rounds: [],
    };
    console.log(`  memory: ${size.toLocaleString("en-US")} items (${fmt(fillSeconds, 1)} s to fill)`);
    const random = seededRandom(CORPUS_SEED + size);
    for (let rep = 0; rep < reps; rep++) {
      const round: Round = { latencies: emptyLatencies(), results: {}, load: load1() };
      for (let i = 0; i < WARMUP + SAMPLES; i++) {
        const search = searchCase(searches++);
        if (i >= WARMUP) sizeResult.commonestWordItems.push(counts.commonest(search.query));
        const existing = corpusItem(random.between(0, size - 1));
        const requests: Record<RequestKind, () => Promise<unknown>> = {
          "put, new item": () => api("PUT", "/v1/memory/items", corpusItem(written++)),
          // Another item's value, so the text indexed changes as a real edit's would.
          "put, new version": () => api("PUT", "/v1/memory/items", { ...existing, value: corpusItem(random.between(0, size - 1)).value }),
          get: () => api("GET", `/v1/memory/items?namespace=${existing.namespace.join(".")}&key=${existing.key}`),
          "search, one user": () => api("POST", "/v1/memory/search", { namespace_prefix: search.prefix, query: search.query }),
          "search, whole tenant": () => api("POST", "/v1/memory/search", { query: search.query }),
          "search, whole tenant with a filter": () =>
            api("POST", "/v1/memory/search", { query: search.query, filter: { kind: search.kind } }),
          "filter only, one user": () =>
            api("POST", "/v1/memory/search", { namespace_prefix: search.prefix, filter: { kind: search.kind } }),
          // Within the scan (MAX_SEARCH_SCAN): the newest 1,000 items hold every kind many times over.
          "filter only, whole tenant": () => api("POST", "/v1/memory/search", { filter: { kind: search.kind } }),
          "search, whole tenant, offset 490": () => api("POST", "/v1/memory/search", { query: search.query, offset: 490 }),
        };
        // Rotated each time, so no kind always follows the same one.
        for (let k = 0; k < REQUEST_KINDS.length; k++) {
          const kind = REQUEST_KINDS[(k + i) % REQUEST_KINDS.length]!;
          const sent = performance.now();
          const body = await requests[kind]();
          const took = performance.now() - sent;
          if (i < WARMUP) continue;
          round.latencies[kind].push(took);
          if (kind.includes("search") || kind.includes("filter"))
            (round.results[kind] ??= []).push((body as { data: unknown[] }).data.length);
        }
      }
      sizeResult.rounds.push(round);
      console.log(
        `  memory ${size.toLocaleString("en-US")}, round ${rep + 1}/${reps}: get ${fmt(median(round.latencies.get), 2)} ms, search ${fmt(median(round.latencies["search, one user"]), 2)} ms p50`,
      );
    }
    result.sizes.push(sizeResult);
  }
  return result;
}

function emptyLatencies(): Record<RequestKind, number[]> {
  return Object.fromEntries(REQUEST_KINDS.map((kind) => [kind, []])) as unknown as Record<RequestKind, number[]>;
}

/** Sends a request with the tenant's token; anything but 200 ends the benchmark, since a wrong answer's time means nothing. */
function apiOf(world: World, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await retryClosedConnection(() =>
      fetch(`${world.platform.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }),
    );
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${path}: answered ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
}

async function fill(world: World, tenant: string, items: unknown[]): Promise<void> {
  const res = await retryClosedConnection(() =>
    fetch(`${world.platform.url}/__bench/memory/${tenant}/items`, {
      method: "POST",
      body: JSON.stringify({ items, created_by: BENCH_SUBJECT }),
    }),
  );
  if (res.status !== 201) throw new Error(`filling the memory store answered ${res.status}: ${await res.text()}`);
}

/** How many items hold each word of the vocabulary, as the full-text index splits their text. */
class WordCounts {
  readonly #items = new Map<string, number>();

  add(item: { value: { text: string; topic: string } }): void {
    for (const word of new Set([...item.value.text.split(" "), item.value.topic])) this.#items.set(word, (this.#items.get(word) ?? 0) + 1);
  }

  commonest(query: string): number {
    return Math.max(...query.split(" ").map((word) => this.#items.get(word) ?? 0));
  }
}

/**
 * The memory store's database (the run's only one: no other suite writes memory; wrangler keeps
 * its own `metadata.sqlite` beside it), its pages in use by table with each table's indexes, as
 * SQLite's `dbstat` reports them.
 */
function storeBytes(world: World): SizeResult["bytes"] {
  const dirs = readdirSync(join(world.platform.root, "state"), { withFileTypes: true, recursive: true }).filter(
    (e) => e.isDirectory() && e.name.endsWith("-MemoryStore"),
  );
  const files = dirs.flatMap((dir) =>
    readdirSync(join(dir.parentPath, dir.name))
      .filter((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite")
      .map((name) => join(dir.parentPath, dir.name, name)),
  );
  if (files.length !== 1) throw new Error(`expected one memory store database, found ${files.join(", ")}`);
  const db = new DatabaseSync(files[0]!, { readOnly: true, timeout: 5_000 });
  try {
    const bytes = { items: 0, versions: 0, fullText: 0, other: 0 };
    const rows = db
      .prepare("SELECT name, tbl_name AS owner, SUM(pgsize) AS size FROM dbstat JOIN sqlite_schema USING (name) GROUP BY name")
      .all() as { name: string; owner: string; size: number }[];
    for (const row of rows) {
      if (row.owner === "items") bytes.items += row.size;
      else if (row.owner === "item_versions") bytes.versions += row.size;
      else if (row.owner.startsWith("items_fts")) bytes.fullText += row.size;
      else bytes.other += row.size;
    }
    return bytes;
  } finally {
    db.close();
  }
}

const MIB = 2 ** 20;

export function memoryTables(result: MemoryResult): Table[] {
  const latencyRows: string[][] = [];
  for (const s of result.sizes) {
    for (const kind of REQUEST_KINDS) {
      const per = (q: number) => spread(s.rounds.map((r) => quantile(r.latencies[kind], q)));
      const results = s.rounds.flatMap((r) => r.results[kind] ?? []);
      latencyRows.push([
        s.size.toLocaleString("en-US"),
        kind,
        fmtSpread(per(0.5), 2),
        fmtSpread(per(0.95), 2),
        fmtSpread(per(0.99), 2),
        results.length > 0 ? fmt(median(results), 0) : "—",
      ]);
    }
  }
  const loads = result.sizes.flatMap((s) => s.rounds.map((r) => r.load));
  const rounds = result.sizes[0]?.rounds.length ?? 0;
  const total = (b: SizeResult["bytes"]) => b.items + b.versions + b.fullText + b.other;
  return [
    {
      title: "Memory: requests through the API as one tenant's store grows",
      columns: ["items", "request", "p50 ms", "p95 ms", "p99 ms", "items answered (median)"],
      rows: latencyRows,
      notes: [
        `${rounds} round${rounds === 1 ? "" : "s"} at each size of ${SAMPLES} timed requests of each kind after ${WARMUP} of warm-up, one request at a time, the kinds taken in turn; each cell is the median of the rounds' figures${rounds > 1 ? " with their range" : ""}. One tenant, one JWT with \`memory:read memory:write\`.`,
        `Items: a seeded corpus of ${VOCABULARY.length.toLocaleString("en-US")} made-up words drawn by Zipf's law, 100–500 characters of text per item with a kind, a topic and two more fields, spread over 1,000 users' namespaces (a quarter one level below, \`users.u_NNNN.episodes\`). A search's query is 2–3 words drawn as the texts draw them; "one user" searches a user's namespace, "whole tenant" every item, "with a filter" adds \`{ kind }\` (one of five kinds, 5–30 % of the items each); "filter only" has no query (newest first); "offset 490" asks for the 50th page of ten. Gets read an item drawn at random; a new version rewrites one with another item's value.`,
        `"put, new item" adds ${SAMPLES * rounds} items per size, so the later rounds of a size run a little above it; the next size is filled up to its count.`,
        `1-minute load average during the rounds: ${fmt(Math.min(...loads), 2)}–${fmt(Math.max(...loads), 2)}.`,
      ],
    },
    {
      title: "Memory: storage and fill",
      columns: [
        "items",
        "fill (s)",
        "items filled per second",
        "storage (MiB)",
        "bytes per item",
        "items, versions, full-text index (MiB)",
        "items holding a query's commonest word (median)",
      ],
      rows: result.sizes.map((s) => [
        s.size.toLocaleString("en-US"),
        fmt(s.fillSeconds, 1),
        fmt(s.filled / s.fillSeconds, 0),
        fmt(total(s.bytes) / MIB, 1),
        fmt(total(s.bytes) / s.size, 0),
        `${fmt(s.bytes.items / MIB, 1)}, ${fmt(s.bytes.versions / MIB, 1)}, ${fmt(s.bytes.fullText / MIB, 1)}`,
        fmt(median(s.commonestWordItems), 0),
      ]),
      notes: [
        `Filled through the benchmark build's route: batches of ${FILL_BATCH.toLocaleString("en-US")} items, each batch one call of the store that runs its \`put\` for every item (so one commit per batch); the fill column is the time to add the items since the previous size.`,
        "Storage: the store's pages in use (SQLite's `dbstat`), each table with its indexes; the item's row holds its current version and the versions table the earlier ones (none after one write), and the full-text index keeps no copy of the text (migrations 7 and 8).",
      ],
    },
  ];
}
