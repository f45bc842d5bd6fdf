/**
 * Who may see and change a schedule: the same rule as for sessions. The Scheduler is addressed
 * by the principal's own tenant, so another tenant's schedule id is simply not found; within a
 * tenant, a principal without tenant:admin reaches only the schedules it created. Every failure
 * is the same 404.
 */
import type { Principal } from "../../auth/principal";
import type { Env } from "../../env";
import type { Schedule } from "../../schedules/types";
import { ApiError } from "../errors";
import { canAccessSession } from "../../sessions/access";
import { isScheduleId } from "./ids";
import { SCHEDULE_NOT_FOUND, SchedulerClient } from "./scheduler-client";

export interface OwnedSchedule {
  schedule: Schedule;
  scheduler: SchedulerClient;
}

/** The schedule and its tenant's Scheduler, or a 404 for a malformed id, a missing schedule or someone else's. */
export async function loadOwnedSchedule(env: Env, principal: Principal, id: string): Promise<OwnedSchedule> {
  if (!isScheduleId(id)) throw new ApiError("not_found", SCHEDULE_NOT_FOUND);
  const scheduler = new SchedulerClient(env, principal.tenantId);
  const schedule = await scheduler.find(id);
  if (!schedule || !canAccessSession(principal, schedule)) throw new ApiError("not_found", SCHEDULE_NOT_FOUND);
  return { schedule, scheduler };
}
