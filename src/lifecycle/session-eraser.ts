/**
 * How the tenant index's retention sweep (src/tenants/tenant-index/retention-sweep.ts) reaches
 * the session objects: through their clients, as `DELETE /v1/sessions/{id}` does. Given to the
 * index where its class is wired (tenant-index.ts here), since the sessions layer sits above it.
 */
import type { Env } from "../env";
import { ApiError } from "../problems";
import { SessionClient } from "../sessions/client";
import type { SessionEraser } from "../tenants/tenant-index/retention-sweep";

const isGone = (error: unknown) => error instanceof ApiError && error.code === "not_found";

export function sessionEraser(env: Env): SessionEraser {
  return {
    async eraseIfExpired(tenantId, sessionId, cutoff) {
      try {
        return (await new SessionClient(env, tenantId, sessionId).eraseIfExpired(cutoff)) ? "erased" : "kept";
      } catch (error) {
        if (isGone(error)) return "gone";
        throw error;
      }
    },
    async erase(tenantId, sessionId) {
      await new SessionClient(env, tenantId, sessionId).erase().catch((error: unknown) => {
        if (!isGone(error)) throw error;
      });
    },
  };
}
