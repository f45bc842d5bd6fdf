/**
 * A sharded tenant's spending for its daily budgets, as its shards send it (shards/spend.ts). A
 * push sets the shard's rows of the day (`shard_spend`, by model, key and creator; the totals only
 * grow, so a push never lowers one) and its reservations: one the index recorded for the shard and
 * the push does not list has ended, one it lists holds what it has not spent yet. Then, when the
 * shard asks, a run of its is judged against every budget (./run-budgets.ts) and its reservation
 * recorded under the shard's name. The answer is the figures of everywhere but the shard.
 */
import type { BudgetWait } from "../../usage/budgets";
import type { Limits } from "../../limits";
import { everyShard, shardKey } from "../../shared/shard-layout";
import { requireString, utcDay } from "../../shared/validate";
import { keyTokenBudget } from "../api-key-store";
import { reserveTokens } from "../budget-reservations";
import { sessionsWaitingOn, wakeBudgetWaiters } from "../budget-waits";
import { MAX_SPEND_ITEMS, parseSpendPush, type SpendAnswer, type SpendFigures, type SpendPush } from "../spend-exchange";
import type * as T from "../types";
import { DAY_MS } from "../usage";
import type { IndexHost } from "./host";
import { budgetsInForce, judgeBudgets, tenantSpendOnDay, tenantTokensOnDay } from "./run-budgets";
import { tellEveryShard } from "./shards";

export async function shardSpend(host: IndexHost, shard: string, push: SpendPush, admit?: T.AdmitRunInput): Promise<SpendAnswer> {
  const key = requireString("shard", shard);
  if (!everyShard(host.config().layouts).some((ref) => shardKey(ref) === key)) throw new TypeError("shard is not one of the tenant's");
  const parsed = parseSpendPush(push);
  const now = Date.now();
  host.transaction(() => {
    keepRows(host.sql, key, parsed, now);
    keepHeld(host.sql, key, parsed);
  });
  const answer: SpendAnswer = { figures: figures(host, key, parsed, now) };
  if (admit !== undefined)
    Object.assign(
      answer,
      host.transaction(() => admitShardRun(host, key, admit)),
    );
  return answer;
}

function keepRows(sql: SqlStorage, shard: string, push: SpendPush, now: number): void {
  // Yesterday's rows stay a day for a shard whose clock is a little behind; older ones count for nothing.
  sql.exec(`DELETE FROM shard_spend WHERE day < ?`, utcDay(now - DAY_MS));
  for (const row of push.rows)
    sql.exec(
      `INSERT INTO shard_spend (day, shard, model, api_key_id, created_by, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (day, shard, model, api_key_id, created_by) DO UPDATE SET
         input_tokens = MAX(input_tokens, excluded.input_tokens), output_tokens = MAX(output_tokens, excluded.output_tokens),
         cache_read_tokens = MAX(cache_read_tokens, excluded.cache_read_tokens), cache_write_tokens = MAX(cache_write_tokens, excluded.cache_write_tokens)`,
      push.day,
      shard,
      row.model,
      row.api_key_id,
      row.created_by,
      row.input_tokens,
      row.output_tokens,
      row.cache_read_tokens,
      row.cache_write_tokens,
    );
}

/** The shard's reservations as it lists them: ended ones go, and each holds no more than it has left (it only goes down). */
function keepHeld(sql: SqlStorage, shard: string, push: SpendPush): void {
  const listed = new Map(push.held.map((held) => [held.session_id, held.tokens]));
  // A full list may have left some out: none is taken as ended.
  const complete = push.held.length < MAX_SPEND_ITEMS;
  const recorded = sql.exec<{ session_id: string }>(`SELECT session_id FROM budget_reservations WHERE shard = ?`, shard).toArray();
  for (const { session_id } of recorded) {
    const tokens = listed.get(session_id);
    if (tokens !== undefined) sql.exec(`UPDATE budget_reservations SET tokens = MIN(tokens, ?) WHERE session_id = ?`, tokens, session_id);
    else if (complete) sql.exec(`DELETE FROM budget_reservations WHERE session_id = ?`, session_id);
  }
}

/** Everywhere but `shard`, today: the tenant's tokens and cost, and each asked creator's and key's tokens with the key's budget. */
function figures(host: IndexHost, shard: string, push: SpendPush, now: number): SpendFigures {
  const day = utcDay(now);
  if (!budgetsInForce(host)) return { budgeted: false, day, tokens: 0, cost_usd: 0, pairs: push.pairs.map(() => NO_PAIR) };
  const cost = tenantSpendOnDay(host, now, "", "", { cost: true, subject: false, key: false }, shard).cost_usd;
  return {
    budgeted: true,
    day,
    tokens: tenantTokensOnDay(host.sql, now, shard),
    cost_usd: cost,
    pairs: push.pairs.map((pair) => {
      const spend = tenantSpendOnDay(host, now, pair.created_by, pair.api_key_id, { cost: false, subject: true, key: true }, shard);
      return {
        subject_tokens: spend.subject_tokens,
        key_tokens: spend.key_tokens,
        key_max_tokens_per_day: keyTokenBudget(host.sql, pair.api_key_id),
      };
    }),
  };
}

const NO_PAIR = { subject_tokens: 0, key_tokens: 0, key_max_tokens_per_day: null };

/** A run of the shard judged as the index judges its own (the shard took its slot): on `ok`, its reservation (if any) is recorded for the shard. */
function admitShardRun(host: IndexHost, shard: string, input: T.AdmitRunInput): Pick<SpendAnswer, "admission" | "reserved"> {
  if (host.config().suspended) return { admission: { ok: false, code: "suspended" }, reserved: 0 };
  const judged = judgeBudgets(host, input);
  if (!judged.ok) return { admission: judged, reserved: 0 };
  if (judged.reserve > 0) reserveTokens(host.sql, judged.id, judged.createdBy, judged.apiKeyId, judged.reserve, judged.at, shard);
  return { admission: { ok: true }, reserved: judged.reserve };
}

/**
 * The sessions waiting on one of `budgets` of `owner` (null: anyone's) are told it went up: the
 * index's own, and every shard's, which each tells its own (budget-waits.ts).
 */
export async function wakeBudgetWaitersEverywhere(
  host: IndexHost,
  tenantId: string,
  budgets: BudgetWait[],
  owner: string | null,
  limits: Limits | null,
): Promise<void> {
  await Promise.all([
    wakeBudgetWaiters(host.env, tenantId, sessionsWaitingOn(host.sql, budgets, owner), limits),
    tellEveryShard(host, tenantId, "shard_budget_wake_untold", (shard, ref) => shard.budgetRaised(tenantId, ref, budgets, owner, limits)),
  ]);
}
