/** The tenant index's note of open event streams: who may open one, and which rows a revocation finds. */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { issuedKey } from "../support/api-keys";
import { freshTenant } from "../support/tokens";

const NOW = Date.now();

async function indexWithKey() {
  const tenantId = freshTenant();
  const index = tenantIndexStub(env, tenantId);
  const { keyId, hash } = await issuedKey(tenantId);
  const at = new Date(NOW).toISOString();
  await index.createApiKey(tenantId, {
    key_id: keyId,
    tenant_id: tenantId,
    name: "k",
    scopes: ["sessions:read"],
    hash,
    created_by: "admin",
    created_at: at,
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
  });
  return { tenantId, index, keyId };
}

describe("TenantIndex.noteEventStream", () => {
  it("notes a stream of a standing key or of a plain JWT, and refuses a revoked or unknown key", async () => {
    const { tenantId, index, keyId } = await indexWithKey();
    const note = (sessionId: string, key: string | null) =>
      index.noteEventStream(tenantId, { sessionId, streamId: `st_${sessionId}`, keyId: key, expiresAt: NOW + 60_000, now: NOW });
    expect(await note("ses_a", keyId)).toEqual({ ok: true, expiresAt: NOW + 60_000 });
    expect(await note("ses_b", null)).toEqual({ ok: true, expiresAt: NOW + 60_000 });
    expect(await note("ses_c", "key_000000000000000000000000")).toEqual({ ok: false, reason: "credentials" });
    await index.revokeApiKey(tenantId, keyId, NOW);
    expect(await note("ses_d", keyId)).toEqual({ ok: false, reason: "credentials" });
    await runInDurableObject(index, (_i, state) => {
      const rows = state.storage.sql.exec("SELECT session_id, key_id FROM open_streams ORDER BY session_id").toArray();
      expect(rows).toEqual([
        { session_id: "ses_a", key_id: keyId },
        { session_id: "ses_b", key_id: "" },
      ]);
    });
  });

  it("refuses every stream of a suspended tenant, and drops rows past their deadline", async () => {
    const { tenantId, index } = await indexWithKey();
    expect(
      await index.noteEventStream(tenantId, { sessionId: "ses_old", streamId: "st_old", keyId: null, expiresAt: NOW + 1_000, now: NOW }),
    ).toMatchObject({ ok: true });
    expect(
      await index.noteEventStream(tenantId, {
        sessionId: "ses_new",
        streamId: "st_new",
        keyId: null,
        expiresAt: NOW + 60_000,
        now: NOW + 2_000,
      }),
    ).toMatchObject({ ok: true });
    await runInDurableObject(index, (_i, state) => {
      expect(state.storage.sql.exec("SELECT session_id FROM open_streams").toArray()).toEqual([{ session_id: "ses_new" }]);
    });
    await index.suspend(tenantId);
    expect(
      await index.noteEventStream(tenantId, { sessionId: "ses_x", streamId: "st_x", keyId: null, expiresAt: NOW + 60_000, now: NOW }),
    ).toEqual({ ok: false, reason: "suspended" });
  });
});
