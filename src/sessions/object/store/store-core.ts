/**
 * The core of the session object's storage: the KV entries read once per synchronous stretch, the
 * on-demand tables, the session and its run state, and the transaction every write joins.
 */
import { migrate } from "../../../storage/migrations";
import { OnDemandTables } from "../../../storage/on-demand-tables";
import { isLive } from "../engine/gone";
import { KvStretchCache } from "../engine/kv-stretch";
import { SESSION_MIGRATIONS } from "./migrations";
import * as outbox from "./outbox";
import { type ToolCall } from "../../../session-config/types";
import { SESSION_BASELINE, SESSION_ON_DEMAND_TABLES, type SessionOnDemandTable } from "./schema";
import { type RunState, readRun, readSession, SESSION_KEY, type StoredSession, writeRun, writeSession } from "./state";

export class StoreCore {
  /**
   * The KV entries below, read once per synchronous stretch (see kv-stretch.ts); the settings and
   * the outbox, which nothing writes but this store (the settings at creation, and when an
   * operator's cap lowers the limits), are kept until `forget` (a rollback, a migration, an
   * erase). A test that writes either behind the store starts a new instance to be seen.
   */
  protected readonly kv: KvStretchCache;
  /** The tables made on first write (schema.ts): a reader of one asks `has` first. */
  readonly tables: OnDemandTables<SessionOnDemandTable>;
  /**
   * The open tool calls, read once per synchronous stretch as the KV entries are (kv-stretch.ts
   * says why that is safe), since a unit asks for them from several places between two awaits.
   * Every write to the calls or the messages here drops them, and so does `forget`.
   */
  protected openCalls: readonly ToolCall[] | null = null;
  #inTransaction = false;

  constructor(protected readonly storage: DurableObjectStorage) {
    this.kv = new KvStretchCache(storage.kv, new Set([SESSION_KEY, outbox.OUTBOX_KEY]));
    this.tables = new OnDemandTables(() => storage.sql, SESSION_ON_DEMAND_TABLES);
  }

  // ---- the session and its run state (KV) ----------------------------------------------

  /** The session's settings, or undefined when it was never created. Reads only. */
  session(): Readonly<StoredSession> | undefined {
    return readSession(this.kv);
  }

  /** Whether the session exists (was created and not erased), without reading its settings. */
  exists(): boolean {
    return readRun(this.kv) !== undefined;
  }

  /**
   * Makes an on-demand table for a write, in the write's transaction. Never in storage that holds
   * no session (erased meanwhile, or never created): such a write fails, as it did when every
   * table was made with the session, instead of leaving a table behind in an erased object.
   */
  ensureTable(name: SessionOnDemandTable): void {
    if (!isLive(this)) throw new Error(`a write to ${name} in storage that holds no session (erased, or never created)`);
    this.tables.ensure(name);
  }

  /** Storage was changed or erased other than through this store. */
  forget(): void {
    this.kv.forget();
    this.tables.forget();
    this.openCalls = null;
  }

  requireSession(): Readonly<StoredSession> {
    const session = this.session();
    if (!session) throw new Error("session used before it was created");
    return session;
  }

  /** Brings an existing session's storage to the current layout; a never-created id stays empty. */
  migrateIfCreated(): void {
    if (!this.session()) return;
    migrate(this.storage, SESSION_MIGRATIONS);
    this.forget(); // a migration may rewrite the stored run state, and drop or make tables
  }

  putSession(session: StoredSession): void {
    writeSession(this.kv, session);
  }

  run(): RunState {
    const run = readRun(this.kv);
    if (!run) throw new Error("run state read before the session was created");
    return run;
  }

  putRun(run: RunState): void {
    writeRun(this.kv, run);
  }

  /** Creates the tables and writes the settings; the one place that first writes storage. */
  create(session: StoredSession, run: RunState): void {
    migrate(this.storage, SESSION_MIGRATIONS, SESSION_BASELINE);
    this.forget();
    writeSession(this.kv, session);
    writeRun(this.kv, run);
  }

  /** Runs `fn` atomically; a transaction opened inside another joins the outer one. */
  transaction<T>(fn: () => T): T {
    if (this.#inTransaction) return fn();
    this.#inTransaction = true;
    try {
      return this.storage.transactionSync(() => this.kv.batch(fn));
    } catch (err) {
      // Rolled back: what the caches remember of its writes (a table made, too) never happened.
      this.forget();
      throw err;
    } finally {
      this.#inTransaction = false;
    }
  }
}
