import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parseSettings } from "../../src/tenants/tenant-settings";
import { INDEX_LAYOUT_V0, writeLegacyIndex } from "../support/legacy-storage";
import { BASE_MS, freshTenant, indexOf } from "./helpers";

describe("tenant settings", () => {
  it("start empty, are replaced as a whole, and ride along with each admission", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    expect(await index.getSettings(tenantId)).toEqual({ webhook_origins: null, session_retention_days: null, traces: null });
    expect(
      await index.putSettings(tenantId, {
        session_retention_days: null,
        traces: null,
        webhook_origins: ["https://a.example.com", "https://a.example.com"],
      }),
    ).toEqual({ webhook_origins: ["https://a.example.com"], session_retention_days: null, traces: null });
    const admission = await index.admitRequest(tenantId, { bucket: "sub:u", now: BASE_MS });
    expect(admission).toMatchObject({ ok: true, settings: { webhook_origins: ["https://a.example.com"] } });
    expect((await index.getCallSigning(tenantId)).webhook_origins).toEqual(["https://a.example.com"]);
    await index.putSettings(tenantId, { webhook_origins: null, session_retention_days: null, traces: null });
    expect(await index.getSettings(tenantId)).toEqual({ webhook_origins: null, session_retention_days: null, traces: null });
  });

  it("read as unset on storage written before settings existed", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(indexOf(tenantId), async (_instance, state) => writeLegacyIndex(state.storage, tenantId, INDEX_LAYOUT_V0));
    await abortAllDurableObjects();
    expect(await indexOf(tenantId).getSettings(tenantId)).toEqual({ webhook_origins: null, session_retention_days: null, traces: null });
  });

  it("keep a retention, and read an entry written before retention existed as none", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    expect(await index.putSettings(tenantId, { webhook_origins: null, session_retention_days: 30, traces: null })).toEqual({
      webhook_origins: null,
      session_retention_days: 30,
      traces: null,
    });
    await runInDurableObject(index, async (_instance, state) =>
      state.storage.kv.put("settings", { webhook_origins: ["https://b.example.com"] }),
    );
    await abortAllDurableObjects();
    expect(await indexOf(tenantId).getSettings(tenantId)).toEqual({
      webhook_origins: ["https://b.example.com"],
      session_retention_days: null,
      traces: null,
    });
  });

  it.each([
    [{ webhook_origins: null, session_retention_days: 0 }],
    [{ webhook_origins: null, session_retention_days: 3651 }],
    [{ webhook_origins: null, session_retention_days: 1.5 }],
    [{ webhook_origins: null, session_retention_days: "30" }],
    [{ webhook_origins: "https://a.example.com" }],
    [{ webhook_origins: ["https://a.example.com/path"] }],
    [{ webhook_origins: ["HTTPS://A.example.com"] }],
    [{ webhook_origins: [42] }],
    [null],
  ])("refuses %j at the object's boundary", (value) => {
    expect(() => parseSettings(value)).toThrow(TypeError);
  });
});
