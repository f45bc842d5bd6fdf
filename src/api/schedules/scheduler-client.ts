/**
 * The gateway's typed client of a tenant's Scheduler. Every call to it goes through here: each
 * answer becomes its value, or the problem its machine reason stands for, mapped to wire text in
 * one switch (`schedulerProblem`). RPC typing cannot carry the `unknown` fields of a stored create
 * body (a tool's input schema), so the one cast of each answer lives here too.
 */
import type { AuditContext } from "../../audit/types";
import type { Page } from "../../session-config/types";
import type { Env } from "../../env";
import { schedulerStub } from "../../objects";
import type {
  Firing,
  ListSchedulesInput,
  NewSchedule,
  PageInput,
  Schedule,
  SchedulePatch,
  SchedulerFailure,
  SchedulerResult,
} from "../../schedules/types";
import { ApiError } from "../errors";

export const SCHEDULE_NOT_FOUND = "No such schedule.";

export function schedulerProblem(failure: SchedulerFailure): ApiError {
  switch (failure.reason) {
    case "schedule_not_found":
      return new ApiError("not_found", SCHEDULE_NOT_FOUND);
    case "limit_reached":
      return new ApiError("conflict", `The tenant already has ${failure.max} schedules, its max_schedules; delete one first.`);
    case "schedule_disabled":
      return new ApiError("conflict", "The schedule is disabled for good (see disabled_reason); delete it, or create a new one.");
  }
}

function value<T>(result: SchedulerResult<T>): T {
  if (result.ok) return result.value;
  throw schedulerProblem(result);
}

type Stub = ReturnType<typeof schedulerStub>;

export class SchedulerClient {
  readonly #stub: Stub;
  readonly #tenantId: string;

  constructor(env: Env, tenantId: string) {
    this.#stub = schedulerStub(env, tenantId);
    this.#tenantId = tenantId;
  }

  async create(input: NewSchedule, by?: AuditContext): Promise<Schedule> {
    return value(await answer<Schedule>(this.#stub.create(this.#tenantId, input, by)));
  }

  /** The schedule, or null when this tenant has none with this id. */
  async find(id: string): Promise<Schedule | null> {
    const result = await answer<Schedule>(this.#stub.get(this.#tenantId, id));
    if (!result.ok && result.reason === "schedule_not_found") return null;
    return value(result);
  }

  async list(input: ListSchedulesInput): Promise<Page<Schedule>> {
    return (await this.#stub.list(this.#tenantId, input)) as Page<Schedule>;
  }

  async update(id: string, patch: SchedulePatch, by?: AuditContext): Promise<Schedule> {
    return value(await answer<Schedule>(this.#stub.update(this.#tenantId, id, patch, by)));
  }

  async remove(id: string, by?: AuditContext): Promise<void> {
    value(await answer<null>(this.#stub.remove(this.#tenantId, id, by)));
  }

  async listFirings(id: string, page: PageInput): Promise<Page<Firing>> {
    return value(await answer<Page<Firing>>(this.#stub.listFirings(this.#tenantId, id, page)));
  }

  /** How many schedules the revoked key's revocation disabled. */
  async disableForKey(keyId: string, now: number): Promise<number> {
    return this.#stub.disableForKey(this.#tenantId, keyId, now);
  }
}

async function answer<T>(call: Promise<unknown>): Promise<SchedulerResult<T>> {
  return (await call) as SchedulerResult<T>;
}
