/**
 * Per-unit timings from `GET /v1/sessions/{id}/steps` (API.md), when the platform serves that
 * route; until it does, the benchmarks fall back to the mock model's clock alone.
 */
import type { ApiClient } from "../../test/e2e/support/api-client";

export interface StepRecord {
  seq: number;
  kind: "model" | "tools" | "summary";
  started_at: string;
  ended_at: string;
  queued_ms: number;
  duration_ms: number;
  outcome: string;
}

interface StepsPage {
  data: StepRecord[];
  next_cursor: string | null;
}

/** A path no route matches answers this detail; a missing session answers another. */
const NO_ROUTE_DETAIL = "No route matches this path.";
const MAX_PAGES = 100;

/** Every unit of the session, oldest first, or null when the platform has no such route. */
export async function readSteps(client: ApiClient, sessionId: string): Promise<StepRecord[] | null> {
  const out: StepRecord[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query: string = `limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const res = await client.request<StepsPage & { detail?: string }>("GET", `/v1/sessions/${sessionId}/steps?${query}`);
    if (res.status === 404 && res.body?.detail === NO_ROUTE_DETAIL) return null;
    if (res.status !== 200) throw new Error(`GET …/steps answered ${res.status}: ${res.text}`);
    out.push(...res.body.data);
    if (res.body.next_cursor === null) return out;
    cursor = res.body.next_cursor;
  }
  throw new Error(`GET …/steps: more than ${MAX_PAGES} pages`);
}
