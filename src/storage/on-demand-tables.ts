/**
 * Tables an object may never use, made on their first write instead of with the object: SQLite
 * gives every table and index a page of its own, empty or not, and stored bytes are billed. A
 * reader asks `has` first and finds nothing when the table was never made; a writer calls
 * `ensure`. Which tables exist is read once per object instance and kept; a rolled-back
 * transaction may have made one that is gone again, so the owner calls `forget` then.
 *
 * A later migration that changes such a table must allow for its absence (and the statements
 * here are then brought to the new shape, like a baseline).
 */
export class OnDemandTables<Name extends string> {
  #present: Set<string> | null = null;

  /** `statements`: per table, what makes it (and any table that goes with it), `IF NOT EXISTS`. */
  constructor(
    private readonly sql: () => SqlStorage,
    private readonly statements: Readonly<Record<Name, readonly string[]>>,
  ) {}

  has(name: Name): boolean {
    this.#present ??= new Set(
      this.sql()
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
        .map((row) => row.name),
    );
    return this.#present.has(name);
  }

  /** Makes the table unless it exists; call inside the transaction of the write that needs it. */
  ensure(name: Name): void {
    if (this.has(name)) return;
    for (const statement of this.statements[name]) this.sql().exec(statement);
    this.#present!.add(name);
  }

  /** Storage changed other than through `ensure` (a rollback, an erase): read what exists again. */
  forget(): void {
    this.#present = null;
  }
}
