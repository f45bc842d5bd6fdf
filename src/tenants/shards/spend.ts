/**
 * A shard's part in its tenant's daily budgets; the index keeps the one count of the tenant's
 * spending (tenant-index/shard-spend.ts), and the shard:
 * - knows whether any daily budget is set, as the index last said (for `BUDGETS_FRESH_MS` at most,
 *   and forgotten when the index tells it of a change of limits or keys), so a tenant without one
 *   costs its shards no call to the index;
 * - starts a budgeted run only once the index judged it and recorded its reservation, and keeps the
 *   same reservation in its own table, settled as the index settles its own (the run's end, a
 *   failed start, the session's removal);
 * - sends its spending of the day and what its reservations still hold at most every
 *   `SPEND_PUSH_MS` while its sessions report, and at once when a reservation ended (or an
 *   admission's answer was lost), which it counts in storage in the same transaction (`owe`) and
 *   sends from its alarm until a push made after it is answered;
 * - answers its sessions' reports with the index's figures of everywhere else plus its own, live.
 * Memory only, apart from the count of ended reservations not sent yet.
 */
import { loadConfig } from "../../config";
import { describeError, log } from "../../log";
import { roundUsd } from "../../models/prices";
import { tenantIndexStub } from "../../objects";
import { shardKey } from "../../shared/shard-layout";
import { utcDay } from "../../shared/validate";
import type { Spend } from "../../usage/budgets";
import { heldReservations, reserveTokens } from "../budget-reservations";
import type { ReportRow } from "../session-report";
import {
  MAX_SPEND_ITEMS,
  type PairFigures,
  pairKey,
  type SpendAnswer,
  type SpendPair,
  type SpendPush,
  type SpendRow,
} from "../spend-exchange";
import type * as T from "../types";
import { tokensOnDay } from "../usage";
import { queryRollup, spendOnDay } from "../usage-rollup";
import type { ShardRef } from "../../shared/shard-layout";

/** How long the shard trusts what the index last said of the tenant's budgets when no one told it of a change. */
export const BUDGETS_FRESH_MS = 60_000;
/** Figures of everywhere else older than this are sent for (in the background) at a session's next report. */
export const SPEND_FRESH_MS = 5_000;
/** The shard sends its spending at most this often while its sessions report and no reservation ended. */
export const SPEND_PUSH_MS = 5_000;
/** What is owed and not sent (a push failed, or the object restarted) goes from the alarm this much later. */
export const SPEND_RETRY_MS = 1_000;
/** An ended reservation is sent at once, or this long after the last push began when that was more recent. */
export const SPEND_OWED_GAP_MS = 250;
/** Creators and keys the shard keeps figures for (the most recently asked). */
const MAX_PAIRS = 1_000;
/** Of those, how many one push asks to refresh besides the ones needed now: stale ones a report used within `PAIR_USED_MS`. */
const REFRESHED_PAIRS = 20;
const PAIR_USED_MS = 60_000;
const OWED_KEY = "spend_owed";

/** What the shard's part needs of the shard (its ShardCore). */
export interface SpendHost {
  readonly sql: SqlStorage;
  readonly kv: SyncKvStorage;
  readonly env: Cloudflare.Env;
  readonly tenantId: string;
  readonly bound: { tenantId: string; shard: ShardRef } | null;
  transaction<R>(fn: () => R): R;
}

interface Kept<V> {
  value: V;
  day: string;
  heardAt: number;
}

/** What a report's answer carries for the budgets. */
export type BudgetAck = { tokens_today: number; spend: Spend & { key_max_tokens_per_day: number | null } };

export class ShardSpend {
  #budgeted: { value: boolean; heardAt: number } | null = null;
  #elsewhere: Kept<{ tokens: number; cost_usd: number }> | null = null;
  readonly #pairs = new Map<string, Kept<PairFigures> & { pair: SpendPair; usedAt: number }>();
  /** Each row's counts as last answered by the index, for the day `#sentDay`. */
  readonly #sent = new Map<string, string>();
  #sentDay = "";
  #chain: Promise<unknown> = Promise.resolve();
  #background: Promise<void> | null = null;
  /** A push was wanted while one was under way: another follows it. */
  #again = false;
  #lastPushAt = 0;
  /** When the last exchange began. */
  #sentAt = 0;
  #deferred: ReturnType<typeof setTimeout> | null = null;
  /** The shard's storage was purged: an answer still to come writes nothing. */
  #retired = false;
  /** Moves on `forget`: the answer to an exchange begun before it is not kept. */
  #generation = 0;

  constructor(private readonly core: SpendHost) {}

  /** A change of the tenant's limits or keys: what the index said is read again at next use. */
  forget(): void {
    this.#budgeted = null;
    this.#elsewhere = null;
    this.#pairs.clear();
    this.#generation++;
  }

  /** Whether a daily budget is set, as the index said within `BUDGETS_FRESH_MS`; null: not known. */
  known(now = Date.now()): boolean | null {
    const kept = this.#budgeted;
    return kept && now - kept.heardAt < BUDGETS_FRESH_MS ? kept.value : null;
  }

  /** After a purge: nothing an exchange under way answers is kept. */
  retire(): void {
    this.#retired = true;
  }

  /** Whether a daily budget is set, as the index last said, however long ago; null: it never said. */
  lastHeard(): boolean | null {
    return this.#budgeted?.value ?? null;
  }

  /** A run of this shard judged by the index against every budget (its slot taken here already); on `ok` its reservation is kept here too. */
  async admit(input: T.AdmitRunInput, named: boolean): Promise<T.RunAdmission> {
    const pair = { created_by: input.createdBy ?? "", api_key_id: input.apiKeyId ?? "" };
    // A start that waited behind an exchange which said no budget is set (none named either) needs no call of its own.
    const answer = await this.#inTurn(() => (!named && this.known() === false ? Promise.resolve(null) : this.#send([pair], input)));
    return answer?.admission ?? { ok: true };
  }

  /** The budgets' part of the answer to `row`'s report; null when no daily budget is set. */
  async ack(row: ReportRow, now: number): Promise<BudgetAck | null> {
    const pair = { created_by: row.created_by, api_key_id: row.api_key_id };
    const day = utcDay(now);
    if (this.known(now) === false) return null;
    let kept = this.#figures(pair, day);
    if (kept === null || this.known(now) === null) {
      try {
        const answer = await this.#exchange([pair]);
        if (!answer.figures.budgeted) return null;
      } catch (error) {
        // The report stands without the index: the last figures heard, if any (a day's figures only grow).
        log("warn", "shard_spend_unread", { tenant_id: this.core.tenantId, error: describeError(error) });
      }
      kept = this.#figures(pair, day);
    } else if (now - kept.heardAt >= SPEND_FRESH_MS && this.#background === null) this.#inBackground([pair]);
    if (kept === null || this.#elsewhere === null) return null;
    kept.usedAt = now;
    const own = spendOnDay(this.core.sql, now, row.created_by, row.api_key_id, loadConfig(this.core.env).prices, {
      cost: true,
      subject: true,
      key: true,
    });
    return {
      tokens_today: this.#elsewhere.value.tokens + tokensOnDay(this.core.sql, now),
      spend: {
        cost_usd: roundUsd(this.#elsewhere.value.cost_usd + own.cost_usd),
        subject_tokens: kept.value.subject_tokens + own.subject_tokens,
        key_tokens: kept.value.key_tokens + own.key_tokens,
        key_max_tokens_per_day: kept.value.key_max_tokens_per_day,
      },
    };
  }

  /**
   * A change of the shard's rows: what is owed, and a run's end while a budget is set, go to the
   * index now; otherwise the spending goes when the last push is `SPEND_PUSH_MS` old and a budget is set.
   */
  changed(ended = false, now = Date.now()): void {
    // At once, or once `SPEND_OWED_GAP_MS` passed since the last push began (runs ending together, one push).
    if (this.owed() || (ended && this.known(now) === true)) {
      const wait = this.#sentAt + SPEND_OWED_GAP_MS - now;
      if (wait <= 0) this.#inBackground([]);
      else
        this.#deferred ??= setTimeout(() => {
          this.#deferred = null;
          if (!this.#retired) this.#inBackground([]);
        }, wait);
    } else if (this.known(now) === true && now - this.#lastPushAt >= SPEND_PUSH_MS) this.#inBackground([]);
  }

  /**
   * A reservation ended here (a run's end, a failed start, a removal), whatever the shard knows of
   * the budgets now: owed to the index until a push made after it is answered. Called in the
   * transaction that ended it, so a crash loses neither.
   */
  owe(): void {
    this.core.kv.put(OWED_KEY, (this.core.kv.get<number>(OWED_KEY) ?? 0) + 1);
  }

  /** Whether an ended reservation is not sent yet (the alarm sends it). */
  owed(): boolean {
    return this.core.kv.get<number>(OWED_KEY) !== undefined;
  }

  /** The alarm's push of what is owed; a failure is logged and tried again at the next alarm. */
  async flush(): Promise<void> {
    try {
      await this.#exchange([]);
    } catch (error) {
      log("warn", "shard_spend_unsent", { tenant_id: this.core.tenantId, error: describeError(error) });
    }
  }

  #figures(pair: SpendPair, day: string): (Kept<PairFigures> & { usedAt: number }) | null {
    const kept = this.#pairs.get(pairKey(pair));
    return kept && kept.day === day && this.#elsewhere?.day === day ? kept : null;
  }

  #inBackground(pairs: SpendPair[]): void {
    if (this.#background) {
      this.#again = true;
      return;
    }
    this.#again = false;
    this.#background = this.#exchange(pairs)
      .then(
        () => undefined,
        (error: unknown) => log("warn", "shard_spend_unsent", { tenant_id: this.core.tenantId, error: describeError(error) }),
      )
      .finally(() => {
        this.#background = null;
        if (this.#again && !this.#retired) this.#inBackground([]);
      });
  }

  /** One exchange with the index at a time, in order, so each push lists every reservation answered before it. */
  #exchange(pairs: SpendPair[], admit?: T.AdmitRunInput): Promise<SpendAnswer> {
    return this.#inTurn(() => this.#send(pairs, admit));
  }

  #inTurn<R>(run: () => Promise<R>): Promise<R> {
    const next = this.#chain.then(run, run);
    this.#chain = next.catch(() => undefined);
    return next;
  }

  async #send(pairs: SpendPair[], admit?: T.AdmitRunInput): Promise<SpendAnswer> {
    const generation = this.#generation;
    const now = Date.now();
    if (this.#retired) throw new Error("the shard's storage was purged");
    this.#sentAt = now;
    const owed = this.core.kv.get<number>(OWED_KEY);
    const push = this.#push(pairs, now);
    const { tenantId, bound } = { tenantId: this.core.tenantId, bound: this.core.bound! };
    const answer = await tenantIndexStub(this.core.env, tenantId).shardSpend(tenantId, shardKey(bound.shard), push, admit);
    if (this.#retired) return answer;
    // Kept in the same stretch as the answer: a later push lists this reservation.
    const reserved = answer.reserved ?? 0;
    if (admit !== undefined && answer.admission?.ok && reserved > 0)
      this.core.transaction(() =>
        reserveTokens(this.core.sql, admit.sessionId, admit.createdBy ?? "", admit.apiKeyId ?? "", reserved, admit.now),
      );
    for (const row of push.rows) this.#sent.set(rowKey(row), counts(row));
    if (owed !== undefined && this.core.kv.get<number>(OWED_KEY) === owed) this.core.kv.delete(OWED_KEY);
    this.#lastPushAt = now;
    if (generation === this.#generation) this.#heard(answer, push.pairs, now);
    return answer;
  }

  #push(pairs: SpendPair[], now: number): SpendPush {
    const day = utcDay(now);
    if (day !== this.#sentDay) {
      this.#sent.clear();
      this.#sentDay = day;
    }
    const rows = queryRollup(this.core.sql, { from: day, to: day, group_by: ["api_key", "created_by"] })
      .map((row): SpendRow => ({
        model: row.model,
        api_key_id: row.api_key_id ?? "",
        created_by: row.created_by ?? "",
        input_tokens: row.input_tokens,
        output_tokens: row.output_tokens,
        cache_read_tokens: row.cache_read_tokens,
        cache_write_tokens: row.cache_write_tokens,
      }))
      .filter((row) => this.#sent.get(rowKey(row)) !== counts(row))
      .slice(0, MAX_SPEND_ITEMS);
    const asked = new Map(pairs.map((pair) => [pairKey(pair), pair]));
    for (const { pair, heardAt, usedAt } of [...this.#pairs.values()].reverse()) {
      if (asked.size >= REFRESHED_PAIRS + pairs.length) break;
      if (now - heardAt >= SPEND_FRESH_MS && now - usedAt < PAIR_USED_MS) asked.set(pairKey(pair), pair);
    }
    return { day, rows, held: heldReservations(this.core.sql, now).slice(0, MAX_SPEND_ITEMS), pairs: [...asked.values()] };
  }

  #heard(answer: SpendAnswer, pairs: SpendPair[], now: number): void {
    const { figures } = answer;
    this.#budgeted = { value: figures.budgeted, heardAt: now };
    this.#elsewhere = { value: { tokens: figures.tokens, cost_usd: figures.cost_usd }, day: figures.day, heardAt: now };
    pairs.forEach((pair, i) => {
      const value = figures.pairs[i];
      if (!value) return;
      const key = pairKey(pair);
      const usedAt = this.#pairs.get(key)?.usedAt ?? now;
      this.#pairs.delete(key);
      this.#pairs.set(key, { pair, value, day: figures.day, heardAt: now, usedAt });
    });
    for (const key of this.#pairs.keys()) {
      if (this.#pairs.size <= MAX_PAIRS) break;
      this.#pairs.delete(key);
    }
  }
}

function rowKey(row: SpendRow): string {
  return `${row.model}\u0000${row.api_key_id}\u0000${row.created_by}`;
}

function counts(row: SpendRow): string {
  return `${row.input_tokens}/${row.output_tokens}/${row.cache_read_tokens}/${row.cache_write_tokens}`;
}
