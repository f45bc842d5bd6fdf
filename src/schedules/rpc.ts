/**
 * What a tenant's Scheduler answers over RPC: the interface its namespace is typed by
 * (src/env.ts), so callers depend on this shape and never on the class. A tenant that never
 * created a schedule is answered as empty, and such a lookup writes nothing.
 */
import type { StorageFootprint } from "../storage/object-storage";
import type { AuditContext } from "../audit/types";
import type { Page } from "../sessions/types";
import type { Firing, ListSchedulesInput, NewSchedule, PageInput, Schedule, SchedulePatch, SchedulerResult } from "./types";

export interface SchedulerRpc {
  /** The tenant was deleted: everything this object stored goes; harmless when done already. */
  purge(tenantId: string): Promise<void>;
  /** What this object's storage holds; reads only. */
  footprint(): Promise<StorageFootprint>;
  create(tenantId: string, input: NewSchedule, by?: AuditContext): Promise<SchedulerResult<Schedule>>;
  get(tenantId: string, id: string): Promise<SchedulerResult<Schedule>>;
  list(tenantId: string, input: ListSchedulesInput): Promise<Page<Schedule>>;
  /** Pause, resume, or a new expression or zone; the next slot is counted from now. A disabled schedule stays disabled. */
  update(tenantId: string, id: string, patch: SchedulePatch, by?: AuditContext): Promise<SchedulerResult<Schedule>>;
  /** Deletes the schedule and its firings; a firing under way still finishes its action. */
  remove(tenantId: string, id: string, by?: AuditContext): Promise<SchedulerResult<null>>;
  listFirings(tenantId: string, id: string, input: PageInput): Promise<SchedulerResult<Page<Firing>>>;
  /**
   * Called when an API key is revoked: the schedules it created stop at once and show why. The
   * firing checks the key too, so a revocation this call missed still stops them at their next
   * slot. Answers how many schedules it disabled.
   */
  disableForKey(tenantId: string, keyId: string, now: number): Promise<number>;
}
