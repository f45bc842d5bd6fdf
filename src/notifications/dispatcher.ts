/**
 * Delivers what the log says is due, from the tenant index's alarm. Each pass is bounded in
 * work and time, so the run-slot pump that shares the alarm (and every request the index serves
 * meanwhile) is never held up for long: at most `DELIVERIES_PER_PASS` attempts, at most
 * `DELIVERIES_PER_TARGET_PER_PASS` to one receiver, `DELIVERY_CONCURRENCY` at a time, and none
 * started after `DELIVERY_PASS_BUDGET_MS`. What is left is due at once and takes the next pass.
 */
import { log } from "../log";
import { attemptDelivery, type DeliveryContext } from "./deliver";
import { deliveryRetryDelay, MAX_DELIVERY_ATTEMPTS } from "./schedule";
import { beginAttempt, type DeliveryRow, dueDeliveries, recordFailure, recordSuccess } from "./delivery-store";

export const DELIVERIES_PER_PASS = 50;
export const DELIVERIES_PER_TARGET_PER_PASS = 10;
/** Workers allow six simultaneous outgoing connections per invocation; more would only queue. */
export const DELIVERY_CONCURRENCY = 6;
/** No attempt starts later than this into a pass; one started just before ends within its 10 s timeout. */
export const DELIVERY_PASS_BUDGET_MS = 5_000;
/**
 * When the last attempt of a schedule is made, the row is due again this long after, should the
 * process die before the answer is recorded; longer than any attempt can take.
 */
export const LAST_ATTEMPT_LEASE_MS = 60_000;

export interface PassResult {
  attempted: number;
  /** Targets whose deliveries settled in this pass, for the retention pass. */
  settledTargets: string[];
}

export async function deliverDue(
  sql: SqlStorage,
  tenantId: string,
  context: (now: number) => DeliveryContext,
  scale: number,
): Promise<PassResult> {
  const started = Date.now();
  const due = dueDeliveries(sql, started, DELIVERIES_PER_PASS, DELIVERIES_PER_TARGET_PER_PASS);
  const result: PassResult = { attempted: 0, settledTargets: [] };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < due.length && Date.now() - started < DELIVERY_PASS_BUDGET_MS) {
      const row = due[next++]!;
      const settled = await deliverOne(sql, tenantId, row, context, scale);
      result.attempted++;
      if (settled) result.settledTargets.push(row.target);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELIVERY_CONCURRENCY, due.length) }, worker));
  return result;
}

/** One attempt of one delivery; returns whether the delivery settled (succeeded or failed for good). */
async function deliverOne(
  sql: SqlStorage,
  tenantId: string,
  row: DeliveryRow,
  context: (now: number) => DeliveryContext,
  scale: number,
): Promise<boolean> {
  const now = Date.now();
  const attempt = row.attempts + 1;
  const retryAt = now + (deliveryRetryDelay(attempt, scale) ?? LAST_ATTEMPT_LEASE_MS);
  if (!beginAttempt(sql, row.id, attempt, retryAt, now)) return false;
  const result = await attemptDelivery({ url: row.url, eventId: row.event_id, eventType: row.event_type, body: row.body }, context(now));
  const at = Date.now();
  if (result.ok) {
    recordSuccess(sql, row.id, result.status, at);
    return true;
  }
  const final = result.final || attempt >= MAX_DELIVERY_ATTEMPTS;
  recordFailure(sql, row.id, { status: result.status, error: result.error, final }, at);
  log("warn", final ? "notification_failed" : "notification_attempt_failed", {
    tenant_id: tenantId,
    delivery_id: row.id,
    event_id: row.event_id,
    endpoint_id: row.endpoint_id,
    attempt,
    status: result.status,
    error: result.error,
    ...(final ? {} : { retry_in_ms: retryAt - at }),
  });
  return final;
}
