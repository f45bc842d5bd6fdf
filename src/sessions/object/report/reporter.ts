/**
 * Reports a session's status and usage to its tenant index. Each report carries the run's
 * revision; the index acknowledges it and the session object records the acknowledged revision, so a
 * report that failed is simply owed and tried again (report-policy.ts says when).
 */
import { log } from "../../../log";
import { sessionHome } from "../../../tenants/shards/home";
import type { NotificationBatch } from "../../../notifications/types";
import type { AdmissionLimits, AdmitRunInput, ReportAck, SessionAdmission, SessionReport } from "../../../tenants/types";
import type { SessionStore, RunState } from "../store/store";
import { totalTokens } from "../../../session-config/types";
import { dailyBudgetsMayCount, reportRetryDelay, usageReportInterval } from "./report-policy";
import { loadConfig } from "../../../config";
import type { Limits } from "../../../limits";
import { budgetReached, type BudgetName } from "../../../usage/budgets";
import { budgetCostUsd } from "../../../models/prices";
import { isLive } from "../engine/gone";
import { runReservation } from "../../../tenants/budget-reservations";
import { heardPolicyVersion } from "../loop/tool-policy";

type ReportSpend = NonNullable<ReportAck["spend"]>;

export class Reporter {
  /** The index's count of the tenant's tokens today at the last acknowledged report (null: none yet). */
  #tokensTodayAtAck: number | null = null;
  /** This session's own tokens when that report was sent. */
  #ownTokensAtAck = 0;
  /** The index's figures for the session's other budgets at that report (null: none yet, or an index without them). */
  #spendAtAck: ReportSpend | null = null;
  /** This session's own cost when that report was sent. */
  #ownCostAtAck = 0;
  /** The UTC day (days since the epoch) of those figures: a day's counts say nothing of the next day's. */
  #dayAtAck = 0;

  /** The title once known: the first input never changes, so it is read from storage until there is one. */
  #title: string | null = null;

  constructor(
    private readonly store: SessionStore,
    private readonly env: Cloudflare.Env,
  ) {}

  /**
   * The tenant's tokens today as far as this session knows: the index's count at the last
   * report, plus what this session spent since. Exact for one session; other sessions' spending
   * shows up at their next report (at most `USAGE_REPORT_INTERVAL_MS` later while a daily budget
   * may count them, `UNBUDGETED_USAGE_REPORT_INTERVAL_MS` when none does).
   * Null before the first report of this wake. Memory only.
   */
  tenantTokensToday(): number | null {
    this.#forgetYesterday();
    if (this.#tokensTodayAtAck === null) return null;
    return this.#tokensTodayAtAck + ownTokens(this.store.run()) - this.#ownTokensAtAck;
  }

  /**
   * The first daily budget below the tenant's token budget this session's run has reached, as far
   * as it knows: the index's figures at the last report plus what this session spent since (so one
   * session alone stops exactly; others' spending is seen at their next report). Null before the
   * first report of this wake.
   */
  budgetReached(limits: Limits): BudgetName | null {
    this.#forgetYesterday();
    const spend = this.#spendAtAck;
    if (spend === null) return null;
    const run = this.store.run();
    const tokens = ownTokens(run) - this.#ownTokensAtAck;
    const cost = this.#ownCost(run) - this.#ownCostAtAck;
    const keyed = Boolean(this.store.requireSession().api_key_id);
    return budgetReached(
      {
        cost_usd: spend.cost_usd + cost,
        subject_tokens: spend.subject_tokens + tokens,
        key_tokens: spend.key_tokens + (keyed ? tokens : 0),
      },
      {
        max_cost_usd_per_day: limits.max_cost_usd_per_day ?? null,
        max_tokens_per_day_per_subject: limits.max_tokens_per_day_per_subject ?? null,
        key_max_tokens_per_day: spend.key_max_tokens_per_day,
      },
    );
  }

  /**
   * Forgets the index's figures, for a run going on after a budget was raised or renewed: the next
   * unit asks for fresh ones before any model call (control/wake.ts), instead of judging by stale ones.
   */
  forgetSpend(): void {
    this.#tokensTodayAtAck = null;
    this.#spendAtAck = null;
  }

  /**
   * How long a usage change may wait while the run goes: short while a daily budget may count it.
   * A key's budget counts only when the index said the key has one (unknown yet: assumed so).
   */
  usageReportMs(): number {
    const session = this.store.session();
    if (!session) return usageReportInterval(true);
    const keyBudgetless = Boolean(session.api_key_id) && this.#spendAtAck !== null && this.#spendAtAck.key_max_tokens_per_day === null;
    return usageReportInterval(dailyBudgetsMayCount(keyBudgetless ? { ...session, api_key_id: null } : session));
  }

  /** Whether the last report's figures are known in this wake (and are today's). */
  knowsSpend(): boolean {
    this.#forgetYesterday();
    return this.#spendAtAck !== null;
  }

  /** Figures of an earlier UTC day are unknown for today: the next unit asks the index again before any model call. */
  #forgetYesterday(): void {
    if (this.#tokensTodayAtAck !== null && utcDay(Date.now()) !== this.#dayAtAck) this.forgetSpend();
  }

  #ownCost(run: RunState): number {
    return budgetCostUsd(loadConfig(this.env).prices, this.store.requireSession().model, run.usage);
  }

  summary(): SessionReport {
    const session = this.store.requireSession();
    const run = this.store.run();
    return {
      id: session.id,
      created_by: session.created_by,
      agent: session.agent ?? null,
      parent_session_id: session.parent?.session_id ?? null,
      title: this.title(),
      metadata: session.metadata,
      model: session.model,
      api_key_id: session.api_key_id ?? null,
      runs: run.runs ?? 0,
      status: run.status,
      stop_reason: run.stop_reason,
      usage: run.usage,
      budget_wait: run.status === "waiting_budget" ? (run.budget_wait?.budget ?? null) : null,
      // The daily budgets its own limits hold, which `budgetReached` judges by: the answer must read their spend.
      daily_budgets: {
        cost: (session.limits.max_cost_usd_per_day ?? null) !== null,
        subject: (session.limits.max_tokens_per_day_per_subject ?? null) !== null,
      },
      created_at: session.created_at,
      updated_at: run.updated_at,
      revision: run.revision,
    };
  }

  title(): string | null {
    this.#title ??= this.store.title();
    return this.#title;
  }

  /**
   * Sends the current summary, with the owed `notifications` when there are any (the answer says
   * whether the index took them). Resolves with the index's answer, or null when the index could
   * not be reached or the session was erased meanwhile; a failure is recorded for a later try and
   * is never an error for the caller, so a final status is never lost.
   */
  async send(notifications: NotificationBatch | null = null): Promise<ReportAck | null> {
    const session = this.store.requireSession();
    const summary = this.summary();
    let ack: ReportAck;
    const sentAt = Date.now();
    try {
      const home = sessionHome(this.env, session.tenant_id, session.shard);
      ack = await (notifications ? home.reportSession(summary, notifications) : home.reportSession(summary));
    } catch (err) {
      if (!isLive(this.store)) return null; // erased meanwhile: nothing left to report
      log("warn", "report_failed", { tenant_id: session.tenant_id, session_id: session.id, error: String(err) });
      const run = this.store.run();
      const failures = run.report_failures + 1;
      this.store.putRun({ ...run, report_failures: failures, report_retry_at: Date.now() + reportRetryDelay(failures) });
      return null;
    }
    if (!isLive(this.store)) return null;
    this.#acknowledged(summary, ack, sentAt);
    return ack;
  }

  /**
   * A new session's run admitted and its first report delivered in one call to the index
   * (`admitSession`): on admission the report is recorded as `send` records it, so none is owed.
   * Errors are the caller's (control/admission.ts): an unanswered admission is settled there.
   */
  async admit(limits: AdmissionLimits): Promise<SessionAdmission> {
    const session = this.store.requireSession();
    const summary = this.summary();
    const input: AdmitRunInput = {
      ...limits,
      // The session's own cap, when its create lowered the tenant's: its worst case is no more.
      ...(limits.reserveTokens === undefined
        ? {}
        : { reserveTokens: runReservation(limits.reserveTokens, session.limits.max_tokens_per_session, totalTokens(summary.usage)) }),
      sessionId: session.id,
      createdBy: session.created_by,
      apiKeyId: session.api_key_id ?? "",
      now: Date.now(),
    };
    const answer = await sessionHome(this.env, session.tenant_id, session.shard).admitSession(input, summary);
    if (answer.ok && isLive(this.store)) this.#acknowledged(summary, answer.ack, input.now);
    return answer;
  }

  /** The index's figures at an acknowledged report, and the report's revision recorded as delivered. */
  #acknowledged(summary: SessionReport, ack: ReportAck, sentAt: number): void {
    if (typeof ack.policy_version === "number") heardPolicyVersion(this.store.requireSession().tenant_id, ack.policy_version, sentAt);
    this.#tokensTodayAtAck = ack.tokens_today;
    this.#dayAtAck = utcDay(Date.now());
    this.#ownTokensAtAck = totalTokens(summary.usage);
    this.#spendAtAck = ack.spend ?? null;
    this.#ownCostAtAck = budgetCostUsd(loadConfig(this.env).prices, this.store.requireSession().model, summary.usage);
    const run = this.store.run();
    this.store.putRun({
      ...run,
      reported_revision: Math.max(run.reported_revision, summary.revision),
      last_report_at: Date.now(),
      report_failures: 0,
      report_retry_at: 0,
    });
  }
}

function ownTokens(run: RunState): number {
  return totalTokens(run.usage);
}

function utcDay(ms: number): number {
  return Math.floor(ms / 86_400_000);
}
