/** Helpers for the schedule tests: schedules created through the public API, and waits on their firings. */
import type { Firing, Schedule } from "../../../src/schedules/types";
import { call, callJson } from "../../support/api";
import type { Caller } from "../sessions/helpers";

export type { Firing, Schedule };

/** A create body whose firings run once on the mock model `model` and end `done`. */
export function sessionBody(model: string, input = "the scheduled job") {
  return { input, model };
}

/** POST /v1/schedules, expecting 201; returns the Schedule. */
export async function createSchedule(who: Caller | Record<string, string>, body: Record<string, unknown>): Promise<Schedule> {
  const headers = "headers" in who && typeof who.headers === "object" ? (who as Caller).headers : (who as Record<string, string>);
  const res = await callJson("/v1/schedules", "POST", body, headers);
  if (res.status !== 201) throw new Error(`create schedule answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Schedule;
}

export async function firingsOf(headers: Record<string, string>, id: string): Promise<Firing[]> {
  const res = await call(`/v1/schedules/${id}/firings?limit=200`, { headers });
  if (res.status !== 200) throw new Error(`firings answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: Firing[] }).data;
}

/** Polls the firings until `done` says they are complete enough; throws after `timeoutMs`. */
export async function waitForFirings(
  headers: Record<string, string>,
  id: string,
  done: (firings: Firing[]) => boolean,
  timeoutMs = 10_000,
): Promise<Firing[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const firings = await firingsOf(headers, id);
    if (done(firings)) return firings;
    if (Date.now() > deadline) throw new Error(`schedule ${id}: firings never settled: ${JSON.stringify(firings)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function patch(headers: Record<string, string>, id: string, body: unknown): Promise<Response> {
  return callJson(`/v1/schedules/${id}`, "PATCH", body, headers);
}
