/**
 * Versioned migrations of Durable Object storage. Objects keep their SQLite across deploys, so
 * every change to a table or to a stored shape is a numbered step that runs once per object.
 * The version reached is kept in the object's own key-value storage; each step and its version
 * bump commit together, so a crash between two steps leaves the object at a consistent version.
 */

/** The key-value entry that records how far an object's storage has been migrated. */
export const SCHEMA_VERSION_KEY = "schema_version";

export interface Migration {
  /** 1, 2, 3, … with no gaps; a deployed step is never edited, only followed by a new one. */
  version: number;
  /** What the step changes, for logs and for reading the list. */
  description: string;
  /** Runs inside a synchronous transaction; it must not await. */
  up(storage: DurableObjectStorage): void;
}

/** The version an object's storage is at; 0 for storage that was never migrated. */
export function schemaVersion(storage: DurableObjectStorage): number {
  return storage.kv.get<number>(SCHEMA_VERSION_KEY) ?? 0;
}

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations[migrations.length - 1]?.version ?? 0;
}

/**
 * Brings `storage` up to the newest version and returns it; storage that holds nothing yet starts
 * from `baseline` when one is given, and takes only the steps after it. Storage written before versions were
 * recorded reads as version 0: the first step of every list creates the original schema with
 * `IF NOT EXISTS`, so on such storage it changes nothing and only records version 1.
 *
 * Storage at a version newer than the code (a rolled-back deploy) is left as it is: a step that
 * only adds lets older code read what it knows; one that rebuilds or drops tables (the session
 * object's 13 to 16) does not, and its list says so (see docs/deploying.md).
 */
export function migrate(storage: DurableObjectStorage, migrations: readonly Migration[], baseline?: Baseline): number {
  checkSequence(migrations);
  let version = schemaVersion(storage);
  if (baseline && version === 0 && !holdsAnyTable(storage, baseline)) {
    // Nothing stored yet: the tables as they are at the baseline's version, in one step.
    storage.transactionSync(() => {
      execAll(storage.sql, baseline.statements);
      storage.kv.put(SCHEMA_VERSION_KEY, baseline.version);
    });
    version = baseline.version;
  }
  for (const migration of migrations) {
    if (migration.version <= version) continue;
    storage.transactionSync(() => {
      migration.up(storage);
      storage.kv.put(SCHEMA_VERSION_KEY, migration.version);
    });
    version = migration.version;
  }
  return version;
}

/**
 * An object's tables as its migrations leave them at `version`, written out, for storage that
 * holds nothing yet (see `migrate`); each object's test holds it to its migrations.
 */
export interface Baseline {
  version: number;
  statements: readonly string[];
}

/**
 * Whether the storage holds a table the baseline would create: storage written before versions
 * were recorded reads as version 0 and must take every step. Tables of the runtime's own (wrangler
 * dev keeps one in each object) do not count.
 */
function holdsAnyTable(storage: DurableObjectStorage, baseline: Baseline): boolean {
  const names = baseline.statements.flatMap((statement) => /^\s*CREATE TABLE (?:IF NOT EXISTS )?"?(\w+)/i.exec(statement)?.[1] ?? []);
  return (
    storage.sql
      .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?)) LIMIT 1", JSON.stringify(names))
      .toArray().length > 0
  );
}

/** A list with gaps or repeats is a programming error that must fail every test, not one object. */
export function checkSequence(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`migration "${migration.description}" has version ${migration.version}, expected ${index + 1}`);
    }
  });
}

/** Runs the statements of a step in order. */
export function execAll(sql: SqlStorage, statements: readonly string[]): void {
  for (const statement of statements) sql.exec(statement);
}
