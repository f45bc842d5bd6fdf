/**
 * A tenant object's storage as a whole: what it holds (rows in its tables, entries in its
 * key-value storage, the database's size), and its erasure. Tenant deletion is proven by these
 * reaching zero on every object of the tenant (`GET /v1/admin/tenants/{id}/storage`).
 */
export interface StorageFootprint {
  /** The platform's tables: named in lowercase, as its migrations name them (the runtime's own are `sqlite_*`, `_cf_*`, and `__miniflare_*` after a local restart). */
  tables: number;
  /** Rows in those tables. */
  rows: number;
  /** Entries in the key-value storage (`ctx.storage.kv`). */
  kv_keys: number;
  /** `sql.databaseSize`: bytes the database file takes, including the runtime's own tables. */
  bytes: number;
}

/** Reads only: a call on an object that holds nothing creates nothing. */
export function storageFootprint(storage: DurableObjectStorage): StorageFootprint {
  const tables = storage.sql
    // Judged by what the platform writes, not by a list of what runtimes add: wrangler dev writes a
    // table of its own into every object it wakes after a restart, an erased one included.
    .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB '[a-z]*' AND name NOT GLOB 'sqlite_*'`)
    .toArray()
    .map((row) => row.name);
  let rows = 0;
  for (const name of tables) {
    rows += storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM "${name.replaceAll('"', '""')}"`).one().n;
  }
  let kvKeys = 0;
  for (const _entry of storage.kv.list()) kvKeys++;
  return { tables: tables.length, rows, kv_keys: kvKeys, bytes: storage.sql.databaseSize };
}

/**
 * The alarm, then everything the object stored: what remains is an object that was never used
 * (the alarm's removal writes the runtime's metadata, which `deleteAll` then takes too; the other
 * order leaves a page of it). A crash in between leaves state without its alarm: an object whose
 * work lives in that state sets the alarm again on its next wake.
 */
export async function purgeStorage(storage: DurableObjectStorage): Promise<void> {
  await storage.deleteAlarm();
  await storage.deleteAll();
}
