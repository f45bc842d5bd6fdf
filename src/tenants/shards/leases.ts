/**
 * Run slots lent to shards, so the tenant's `max_concurrent_runs` stays exact with no call to the
 * index per run. The index owns the total and keeps a ledger row per shard (`slot_leases`); a
 * shard admits a run only while its runs, reservations and queued-ahead sessions stay below its
 * lease. The leases never add up to more than the total less the index's own slots in use, so
 * the tenant never runs more than its limit, in any order of calls or crashes.
 *
 * A shard asks with the whole lease it wants and a sequence number it wrote before asking: the
 * index applies a number once and answers a repeat with what it recorded, so an answer lost in
 * a crash is asked for again and never granted twice.
 *
 * Spare slots (a lease beyond what a shard's sessions hold) are lent while there is room, so a
 * busy shard asks rarely. When a shard needs a slot the room cannot give, the index first takes
 * the spares back: each shard holding a lease yields down to what its sessions hold, writing the
 * smaller request itself (its capacity drops at once), and the index records it under that
 * shard's own number before answering. A slot is refused only while the tenant's runs fill its limit.
 */
import { slotsInUse } from "../sessions-store";

/** What a lease request or answer carries. */
export interface Lease {
  leased: number;
  seq: number;
  /** The tenant is suspended: the shard admits nothing. */
  suspended?: boolean;
}

/** The fewest slots a shard asks for beyond what it needs now (it asks for its need again when more), so a busy shard asks the index once per many runs. */
export const LEASE_BLOCK = 4;
/** A shard gives back its spare slots once no run was admitted on it for this long. */
export const LEASE_IDLE_MS = 2_000;
/** A shard with queued sessions and no spare slot asks again this often. */
export const LEASE_RETRY_MS = 1_000;

// ---- the index's side

/** A shard's smaller request, written when the index asked it to yield its spare slots. */
export interface Yielded {
  seq: number;
  want: number;
}

/** The shards holding a lease, other than `except`. */
export function lessees(sql: SqlStorage, except: string): string[] {
  return sql
    .exec<{ shard: string }>(`SELECT shard FROM slot_leases WHERE leased > 0 AND shard <> ? ORDER BY leased DESC`, except)
    .toArray()
    .map((row) => row.shard);
}

/** Slots the room has now for `shard`: the total less the index's own in use and the others' leases. */
export function leaseRoom(sql: SqlStorage, shard: string, maxConcurrent: number): number {
  return Math.max(0, maxConcurrent - slotsInUse(sql, "") - leasedTotal(sql, shard));
}

/** The ledger's row for `shard`: its lease and the number of the last request applied; null before its first. */
export function recordedLease(sql: SqlStorage, shard: string): Lease | null {
  return sql.exec<{ leased: number; seq: number }>(`SELECT leased, seq FROM slot_leases WHERE shard = ?`, shard).toArray()[0] ?? null;
}

/** Every slot lent out, apart from `except`'s lease. */
export function leasedTotal(sql: SqlStorage, except = ""): number {
  return sql.exec<{ n: number | null }>(`SELECT SUM(leased) AS n FROM slot_leases WHERE shard <> ?`, except).one().n ?? 0;
}

/**
 * The lease the index grants `shard` for a request numbered `seq` wanting `want` slots in all:
 * as much of it as the total allows beside the index's own slots in use and the other leases.
 * Inside the index's transaction. A number seen already is answered with what was recorded.
 */
export function answerLease(sql: SqlStorage, shard: string, seq: number, want: number, maxConcurrent: number): Lease {
  const row = recordedLease(sql, shard);
  if (row && seq <= row.seq) return row;
  const leased = Math.min(Math.max(0, want), leaseRoom(sql, shard, maxConcurrent));
  sql.exec(
    `INSERT INTO slot_leases (shard, leased, seq) VALUES (?, ?, ?)
     ON CONFLICT (shard) DO UPDATE SET leased = excluded.leased, seq = excluded.seq`,
    shard,
    leased,
    seq,
  );
  return { leased, seq };
}

// ---- the shard's side

const LEASE_KEY = "lease";
const PENDING_KEY = "lease_pending";

/** The shard's lease as last answered, and a request written but not answered yet. */
export class LeaseBook {
  constructor(private readonly kv: () => SyncKvStorage) {}

  held(): Lease {
    return this.kv().get<Lease>(LEASE_KEY) ?? { leased: 0, seq: 0 };
  }

  pending(): { seq: number; want: number } | null {
    return this.kv().get<{ seq: number; want: number }>(PENDING_KEY) ?? null;
  }

  /** What the shard may admit against now: while a smaller lease is asked for, the smaller. */
  capacity(): number {
    const pending = this.pending();
    const { leased } = this.held();
    return pending === null ? leased : Math.min(leased, pending.want);
  }

  /** Writes the request before it is sent; one that is pending already is sent again as it was. */
  request(want: number): { seq: number; want: number } {
    const pending = this.pending();
    if (pending) return pending;
    const next = { seq: this.held().seq + 1, want };
    this.kv().put(PENDING_KEY, next);
    return next;
  }

  /**
   * The index asks for the spare slots back: a request for what the shard's runs hold is written
   * now (so the capacity is at most that from here on) and handed to the index to record, under a
   * number after any request in flight, which the index then answers with this one's lease.
   */
  yieldTo(inUse: number, always = false): Yielded {
    const held = this.held();
    const pending = this.pending();
    // Nothing spare: the lease as the index recorded it (a number it has applied, so nothing changes
    // there), unless the index must record a smaller one whatever this shard holds (a lowered limit).
    if (!always && inUse >= this.capacity()) return { seq: held.seq, want: held.leased };
    const next = { seq: Math.max(held.seq, pending?.seq ?? 0) + 1, want: inUse };
    this.kv().put(PENDING_KEY, next);
    return next;
  }

  /** The index's answer to the pending request (an answer to an older one changes nothing). */
  answered(answer: Lease): void {
    const pending = this.pending();
    if (answer.seq < this.held().seq) return;
    this.kv().put(LEASE_KEY, { leased: answer.leased, seq: answer.seq });
    if (pending && answer.seq >= pending.seq) this.kv().delete(PENDING_KEY);
  }
}
