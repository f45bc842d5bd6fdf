/**
 * The Scheduler Durable Object, one per tenant: the tenant's schedules and their firings, fired
 * from the object's alarm, which is always set for the earliest slot (or retry) of them all.
 * Storage: see storage.md; what each call answers: `SchedulerRpc` (rpc.ts).
 *
 * A slot fires at most once: its firing row is written, and the schedule moved to its next slot,
 * in one transaction before the action; the action is idempotent for that slot (slot-ids.ts),
 * so a firing found pending after a crash is finished (recorded if it had acted, else done now)
 * and never repeated. Slots missed while the platform was down fire once, as the first of them.
 */
import { purgeStorage, storageFootprint, type StorageFootprint } from "../storage/object-storage";
import { DurableObject } from "cloudflare:workers";
import type { Page } from "../sessions/types";
import { describeError, log } from "../log";
import { parseAuditContext } from "../audit/entry";
import { type AuditOutbox, tenantAuditOutbox } from "../audit/outbox";
import type { AuditContext } from "../audit/types";
import { AlarmClock } from "../storage/alarm-clock";
import { migrate } from "../storage/migrations";
import { TenantBinding } from "../tenants/tenant-binding";
import { optionalString, requireInt, requireNow, requirePageLimit, requireString } from "../tenants/validate";
import { disabledMessage } from "./binding";
import { nextSlot } from "./cron";
import { parseAction } from "./action";
import { type ActionResult, actionDone, type Gate, openGate, performAction, type SlotKeys } from "./fire";
import { SCHEDULER_MIGRATIONS } from "./migrations";
import type { SchedulerRpc } from "./rpc";
import { slotRequestKey, slotSessionId } from "./slot-ids";
import * as store from "./store";
import type { Firing, ListSchedulesInput, NewSchedule, PageInput, Schedule, SchedulePatch, SchedulerResult } from "./types";

/** Firings started by one alarm; the rest are due at once and start in the next. */
export const MAX_FIRINGS_PER_ALARM = 25;
/** A firing that meets a fault (an object unreachable) is tried this many times in all. */
export const MAX_FIRING_ATTEMPTS = 5;
/** The first retry's delay, doubled on each further one. */
export const FIRING_RETRY_BASE_MS = 1_000;
/** A slot whose gate could not be asked (the tenant's index unreachable) waits this long, then fires late, once. */
export const GATE_RETRY_MS = 2_000;

const NOT_FOUND = { ok: false, reason: "schedule_not_found" } as const;

export class Scheduler extends DurableObject<Cloudflare.Env> implements SchedulerRpc {
  /** Every alarm is set through it, never at or before now (see storage/alarm-clock.ts). */
  readonly #alarms: AlarmClock;
  #binding: TenantBinding;
  /** Whether the tables exist: only once a schedule was created, never for a lookup alone. */
  #migrated = false;
  /** Set when a gate could not be asked, so a due slot does not spin the alarm. */
  #holdUntil = 0;
  /** Entries owed to the tenant's log; the alarm hands over what a call could not. */
  readonly #audit: AuditOutbox;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#alarms = new AlarmClock(ctx.storage);
    // The tenant registry is the tenant index's to feed; this object only binds its tenant.
    this.#binding = new TenantBinding(ctx.storage.kv, async () => undefined);
    this.#audit = tenantAuditOutbox(ctx.storage, env, () => this.#binding.tenantId ?? null, this.#alarms);
    // On every wake the alarm is set for what is due: it may have been lost with a crash.
    if (this.#binding.bound) {
      void ctx.blockConcurrencyWhile(async () => {
        this.#migrate();
        const revived = store.reviveInterrupted(this.#sql, Date.now());
        if (revived > 0) log("info", "schedule_firings_revived", { tenant_id: this.#binding.tenantId, firings: revived });
        await this.#syncAlarm();
      });
    }
  }
  /**
   * The tenant was deleted: every byte this object stored goes, and it forgets its tenant, as an
   * object never used. Harmless when done already (src/lifecycle/tenant-deletion.ts).
   */
  async purge(tenantId: string): Promise<void> {
    if (!this.#peek(tenantId)) return;
    await purgeStorage(this.ctx.storage);
    this.#binding = new TenantBinding(this.ctx.storage.kv, async () => undefined);
    this.#migrated = false;
  }

  /** What this object's storage holds; reads only. */
  async footprint(): Promise<StorageFootprint> {
    return storageFootprint(this.ctx.storage);
  }

  async create(tenantId: string, input: NewSchedule, by?: AuditContext): Promise<SchedulerResult<Schedule>> {
    await this.#enter(tenantId);
    const schedule = checkNewSchedule(input);
    const context = parseAuditContext(by);
    const nextAt = schedule.paused ? null : nextSlot(schedule.cron, schedule.timezone, schedule.now);
    const created = this.ctx.storage.transactionSync(() => {
      if (store.countSchedules(this.#sql) >= schedule.maxSchedules) return false;
      store.insertSchedule(this.#sql, schedule, nextAt);
      const { cron, timezone, paused } = schedule;
      this.#audit.record(
        tenantId,
        context,
        { action: "schedule.created", target: { type: "schedule", id: schedule.id }, details: { cron, timezone, paused } },
        schedule.now,
      );
      return true;
    });
    if (!created) return { ok: false, reason: "limit_reached", max: schedule.maxSchedules };
    await this.#audit.flush();
    await this.#syncAlarm();
    return this.#view(tenantId, schedule.id);
  }

  async get(tenantId: string, id: string): Promise<SchedulerResult<Schedule>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    return this.#view(tenantId, requireString("id", id));
  }

  async list(tenantId: string, input: ListSchedulesInput): Promise<Page<Schedule>> {
    if (!this.#peek(tenantId)) return { data: [], next_cursor: null };
    const page = store.listSchedules(
      this.#sql,
      optionalString("created_by", input.created_by),
      requirePageLimit(input.limit),
      optionalString("cursor", input.cursor, 1024),
    );
    return { data: page.rows.map((row) => store.toSchedule(tenantId, row)), next_cursor: page.next_cursor };
  }

  async update(tenantId: string, id: string, patch: SchedulePatch, by?: AuditContext): Promise<SchedulerResult<Schedule>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const row = store.getSchedule(this.#sql, requireString("id", id));
    if (!row) return NOT_FOUND;
    if (row.disabled_reason !== null) return { ok: false, reason: "schedule_disabled" };
    const now = requireNow(patch.now);
    const cron = patch.cron === undefined ? row.cron : requireString("cron", patch.cron);
    const timezone = patch.timezone === undefined ? row.timezone : requireString("timezone", patch.timezone);
    const paused = patch.paused === undefined ? row.paused === 1 : requireBoolean("paused", patch.paused);
    const changed = cron !== row.cron || timezone !== row.timezone || paused !== (row.paused === 1);
    const nextAt = paused ? null : changed ? nextSlot(cron, timezone, now) : row.next_at;
    const context = parseAuditContext(by);
    this.ctx.storage.transactionSync(() => {
      store.updateSchedule(this.#sql, row.id, { cron, timezone, paused, next_at: nextAt }, now);
      const before = { cron: row.cron, timezone: row.timezone, paused: row.paused === 1 };
      if (changed)
        this.#audit.record(
          tenantId,
          context,
          { action: "schedule.updated", target: { type: "schedule", id: row.id }, details: { before, after: { cron, timezone, paused } } },
          now,
        );
    });
    await this.#audit.flush();
    await this.#syncAlarm();
    return this.#view(tenantId, row.id);
  }

  async remove(tenantId: string, id: string, by?: AuditContext): Promise<SchedulerResult<null>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const scheduleId = requireString("id", id);
    const context = parseAuditContext(by);
    const removed = this.ctx.storage.transactionSync(() => {
      if (!store.deleteSchedule(this.#sql, scheduleId)) return false;
      this.#audit.record(tenantId, context, { action: "schedule.deleted", target: { type: "schedule", id: scheduleId } }, Date.now());
      return true;
    });
    if (!removed) return NOT_FOUND;
    await this.#audit.flush();
    await this.#syncAlarm();
    return { ok: true, value: null };
  }

  async listFirings(tenantId: string, id: string, input: PageInput): Promise<SchedulerResult<Page<Firing>>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const scheduleId = requireString("id", id);
    if (!store.getSchedule(this.#sql, scheduleId)) return NOT_FOUND;
    return {
      ok: true,
      value: store.listFirings(this.#sql, scheduleId, requirePageLimit(input.limit), optionalString("cursor", input.cursor, 1024)),
    };
  }

  async disableForKey(tenantId: string, keyId: string, now: number): Promise<number> {
    if (!this.#peek(tenantId)) return 0;
    const at = requireNow(now);
    const ids = store.schedulesOfKey(this.#sql, requireString("keyId", keyId));
    this.ctx.storage.transactionSync(() => {
      for (const id of ids) store.updateSchedule(this.#sql, id, { disabled_reason: "api_key_revoked", disabled_at: at, next_at: null }, at);
    });
    if (ids.length > 0) await this.#syncAlarm();
    return ids.length;
  }

  override async alarm(): Promise<void> {
    const tenantId = this.#binding.tenantId;
    if (!tenantId || !this.#migrated) return;
    await this.#audit.flush();
    const now = Date.now();
    // Firings a crash or a fault left pending first, then the slots that have come.
    const pending = store.retriesDue(this.#sql, now, MAX_FIRINGS_PER_ALARM).filter((firing) => store.claimRetry(this.#sql, firing));
    const due = store.dueSchedules(this.#sql, now, MAX_FIRINGS_PER_ALARM);
    const work = [...pending.map((firing) => this.#complete(tenantId, firing)), ...due.map((row) => this.#fire(tenantId, row))];
    for (const result of await Promise.allSettled(work)) {
      if (result.status === "rejected") log("error", "schedule_firing_error", { tenant_id: tenantId, error: describeError(result.reason) });
    }
    await this.#syncAlarm();
  }

  // ---- private helpers (not reachable over RPC) ------------------------------------------

  /** A slot that has come: gate, record, then act. */
  async #fire(tenantId: string, row: store.ScheduleRow): Promise<void> {
    const slot = row.next_at;
    if (slot === null) return;
    const action = parseAction(store.actionOf(row));
    const keys = await slotKeys(row.id, slot, action);
    let gate: Gate;
    try {
      gate = await openGate(this.env, tenantId, store.creatorOf(row), Date.now());
    } catch (error) {
      // Nothing recorded: the slot stays due and fires, late and once, when the gate answers.
      log("warn", "schedule_gate_unavailable", { tenant_id: tenantId, schedule_id: row.id, error: describeError(error).message });
      this.#holdUntil = Date.now() + GATE_RETRY_MS;
      return;
    }
    // A PATCH or DELETE may have come in while the gate was asked.
    const current = store.getSchedule(this.#sql, row.id);
    if (!current || current.next_at !== slot) return;
    const now = Date.now();
    if (gate.kind === "disable") {
      // The slot is recorded as refused, so the schedule's firings say why it stopped.
      const refused = this.ctx.storage.transactionSync(() => {
        store.updateSchedule(this.#sql, row.id, { disabled_reason: gate.reason, disabled_at: now, next_at: null }, now);
        return store.insertFiring(this.#sql, row.id, slot, null, now);
      });
      log("info", "schedule_disabled", { tenant_id: tenantId, schedule_id: row.id, reason: gate.reason });
      if (refused)
        this.#finish(
          { schedule_id: row.id, scheduled_at: slot },
          { outcome: "failed", error_code: "forbidden", error: disabledMessage(gate.reason) },
        );
      return;
    }
    // Every slot up to now is covered by this one firing: the next one is after now.
    const nextAt = nextSlot(current.cron, current.timezone, Math.max(now, slot));
    if (gate.kind === "suspended") {
      store.updateSchedule(this.#sql, row.id, { next_at: nextAt }, now);
      return;
    }
    const recorded = this.ctx.storage.transactionSync(() => {
      store.updateSchedule(this.#sql, row.id, { next_at: nextAt, last_fired_at: now }, now);
      return store.insertFiring(this.#sql, row.id, slot, keys?.sessionId ?? null, now);
    });
    if (!recorded) return;
    const firing = { schedule_id: row.id, scheduled_at: slot, attempts: 0 };
    if (gate.kind === "refused") return this.#finish(firing, { outcome: "failed", error_code: gate.error_code, error: gate.error });
    if (action === null || keys === null) return this.#finish(firing, UNREADABLE_ACTION);
    await this.#act(firing, () => performAction(gate.actor, action, keys));
  }

  /** A firing left pending: recorded if its action already happened, else gated and done now. */
  async #complete(tenantId: string, firing: store.FiringRow): Promise<void> {
    const row = store.getSchedule(this.#sql, firing.schedule_id);
    if (!row) return;
    const action = parseAction(store.actionOf(row));
    const keys = await slotKeys(row.id, firing.scheduled_at, action);
    if (action === null || keys === null) return this.#finish(firing, UNREADABLE_ACTION);
    await this.#act(firing, async () => {
      const done = await actionDone(this.env, tenantId, action, keys);
      if (done) return done;
      const gate = await openGate(this.env, tenantId, store.creatorOf(row), Date.now());
      if (gate.kind === "go") return performAction(gate.actor, action, keys);
      if (gate.kind === "refused") return { outcome: "failed", error_code: gate.error_code, error: gate.error };
      if (gate.kind === "suspended") return { outcome: "failed", error_code: "tenant_suspended", error: "The tenant is suspended." };
      const now = Date.now();
      store.updateSchedule(this.#sql, row.id, { disabled_reason: gate.reason, disabled_at: now, next_at: null }, now);
      return { outcome: "failed", error_code: "forbidden", error: disabledMessage(gate.reason) };
    });
  }

  /** Runs the action; a fault leaves the firing pending for a later try, up to `MAX_FIRING_ATTEMPTS`. */
  async #act(
    firing: Pick<store.FiringRow, "schedule_id" | "scheduled_at" | "attempts">,
    action: () => Promise<ActionResult>,
  ): Promise<void> {
    let result: ActionResult;
    try {
      result = await action();
    } catch (error) {
      const attempts = firing.attempts + 1;
      log("warn", "schedule_firing_retry", {
        schedule_id: firing.schedule_id,
        scheduled_at: firing.scheduled_at,
        attempts,
        error: describeError(error).message,
      });
      if (attempts < MAX_FIRING_ATTEMPTS) {
        store.retryFiring(this.#sql, firing, attempts, Date.now() + FIRING_RETRY_BASE_MS * 2 ** (attempts - 1));
        return;
      }
      result = {
        outcome: "failed",
        error_code: "service_unavailable",
        error: `The firing met a fault ${attempts} times and was given up.`,
      };
    }
    this.#finish(firing, result);
  }

  #finish(firing: Pick<store.FiringRow, "schedule_id" | "scheduled_at">, result: ActionResult): void {
    const failure = result.outcome === "failed" ? result : null;
    store.finishFiring(
      this.#sql,
      firing,
      { outcome: result.outcome, error_code: failure?.error_code ?? null, error: failure?.error ?? null },
      Date.now(),
    );
  }

  /** The alarm goes off at the earliest slot or retry; while a gate was unreachable, not before the hold. */
  async #syncAlarm(): Promise<void> {
    const times = [store.firstSlot(this.#sql), store.firstRetry(this.#sql), this.#audit.retryAt(Date.now())].filter(
      (at): at is number => at !== null,
    );
    await this.#alarms.sync(times.length === 0 ? null : Math.max(Math.min(...times), this.#holdUntil));
  }

  #view(tenantId: string, id: string): SchedulerResult<Schedule> {
    const row = store.getSchedule(this.#sql, id);
    return row ? { ok: true, value: store.toSchedule(tenantId, row) } : NOT_FOUND;
  }

  get #sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  /** Binds the tenant on first use and creates the tables. */
  async #enter(tenantId: string): Promise<void> {
    await this.#binding.enter(tenantId, Date.now());
    if (!this.#migrated) this.#migrate();
  }

  /** For reads: false when no schedule was ever created here, so a lookup writes nothing. */
  #peek(tenantId: string): boolean {
    return this.#binding.peek(tenantId) && this.#migrated;
  }

  #migrate(): void {
    migrate(this.ctx.storage, SCHEDULER_MIGRATIONS);
    this.#migrated = true;
  }
}

const UNREADABLE_ACTION: ActionResult = {
  outcome: "failed",
  error_code: "validation_failed",
  error: "The schedule's stored action no longer passes the create or message schema; delete the schedule and create it again.",
};

/** The slot's session and request key; null when the action cannot be read. */
async function slotKeys(scheduleId: string, slot: number, action: ReturnType<typeof parseAction>): Promise<SlotKeys | null> {
  if (action === null) return null;
  const sessionId = action.session ? await slotSessionId(scheduleId, slot) : action.message.session_id;
  return { sessionId, requestKey: slotRequestKey(scheduleId, slot) };
}

function requireBoolean(name: string, value: unknown): boolean {
  if (typeof value !== "boolean") throw new TypeError(`${name} must be a boolean`);
  return value;
}

/** The fields of a new schedule, checked: a malformed one is a caller's bug. */
function checkNewSchedule(input: NewSchedule): NewSchedule {
  const creator = input.creator;
  if (typeof creator !== "object" || creator === null) throw new TypeError("creator must be an object");
  if (!Array.isArray(creator.scopes)) throw new TypeError("creator.scopes must be a list");
  if (creator.via !== "jwt" && creator.via !== "api_key") throw new TypeError("creator.via must be jwt or api_key");
  const action = input.action;
  if (typeof action !== "object" || action === null || (action.session === null) === (action.message === null)) {
    throw new TypeError("action must hold exactly one of session and message");
  }
  return {
    id: requireString("id", input.id),
    creator: {
      subject: requireString("creator.subject", creator.subject),
      scopes: creator.scopes,
      via: creator.via,
      key_id: optionalString("creator.key_id", creator.key_id),
      expires_at: creator.expires_at === null ? null : requireNow(creator.expires_at),
    },
    cron: requireString("cron", input.cron),
    timezone: requireString("timezone", input.timezone),
    paused: requireBoolean("paused", input.paused),
    action,
    maxSchedules: requireInt("maxSchedules", input.maxSchedules, 0),
    now: requireNow(input.now),
  };
}
