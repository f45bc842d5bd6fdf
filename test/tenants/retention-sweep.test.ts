/**
 * The retention sweep as a stage of the tenant index, with the session objects replaced by a
 * recording `SessionEraser`: the index removes its own rows (and their audit entries), a session
 * its object keeps stays, a row whose object is gone goes alone, and one failure never stops a pass;
 * a shard's rows are swept the same way, through the shard, with the entries in the index's log.
 */
import { env, runInDurableObject } from "cloudflare:test";
import type { AuditEntry } from "../../src/audit/types";
import type { Page } from "../../src/session-config/types";
import { describe, expect, it } from "vitest";
import type { TenantIndex } from "../../src/tenants/tenant-index";
import { IndexCore } from "../../src/tenants/tenant-index/core";
import { type SessionEraser, sweepExpired } from "../../src/tenants/tenant-index/retention-sweep";
import { BASE_MS, freshTenant, indexOf, report } from "./helpers";
import { tenantShardStub } from "../../src/objects";
import { shardRows } from "../../src/tenants/shards/rows";
import { fnv1a } from "../../src/shared/shard-layout";

const RULE = { days: 1, dayMs: 1_000 };
const NOW = BASE_MS + 10_000;

type Outcome = "erased" | "kept" | "gone" | "fails";

function recordingEraser(outcomes: Record<string, Outcome>) {
  const calls: string[] = [];
  const eraser: SessionEraser = {
    async eraseIfExpired(_tenantId, sessionId, cutoff) {
      calls.push(`eraseIfExpired ${sessionId} ${cutoff}`);
      const outcome = outcomes[sessionId] ?? "erased";
      if (outcome === "fails") throw new Error("object unreachable");
      return outcome;
    },
    async erase(_tenantId, sessionId) {
      calls.push(`erase ${sessionId}`);
    },
  };
  return { eraser, calls };
}

async function sweep(tenantId: string, eraser: SessionEraser, shard?: { generation: number; shards: number; k: number }) {
  return runInDurableObject(indexOf(tenantId), async (_instance: TenantIndex, state) => {
    const core = new IndexCore(state, env, eraser);
    const host = await core.enter(tenantId);
    return sweepExpired(host, eraser, tenantId, RULE, NOW, shard ? shardRows(env, tenantId, shard) : undefined);
  });
}

async function listedIds(tenantId: string): Promise<string[]> {
  return (await indexOf(tenantId).listSessions(tenantId, { limit: 100 })).data.map((s) => s.id).sort();
}

async function deletedInLog(tenantId: string): Promise<string[]> {
  // The entries' JSON detail is no RPC-serializable type to the stub's typing: the page is read as the index returns it.
  const page = (await indexOf(tenantId).listAuditLog(tenantId, { limit: 100, cursor: null })) as unknown as Page<AuditEntry>;
  return page.data
    .filter((entry) => entry.action === "session.deleted")
    .map((entry) => entry.target.id)
    .sort();
}

describe("the retention sweep, a stage of the tenant index", () => {
  it("erases an expired session's object, then its row and its children's, deepest first, each with its audit entry", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("parent", { status: "done" }));
    await index.reportSession(tenantId, report("child", { status: "done", parent_session_id: "parent" }));
    await index.reportSession(tenantId, report("grandchild", { status: "done", parent_session_id: "child" }));
    await index.reportSession(tenantId, report("recent", { status: "done", updatedMs: NOW }));
    const { eraser, calls } = recordingEraser({});

    expect(await sweep(tenantId, eraser)).toEqual({ erased: 1, full: false });

    // Children are not swept on their own: they go with the session that started them.
    expect(calls).toEqual([`eraseIfExpired parent ${NOW - RULE.dayMs}`, "erase grandchild", "erase child"]);
    expect(await listedIds(tenantId)).toEqual(["recent"]);
    expect(await deletedInLog(tenantId)).toEqual(["child", "grandchild", "parent"]);
  });

  it("keeps a session its object keeps, drops alone the row of an object that is gone, and goes on past a failure", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    for (const id of ["a-kept", "b-gone", "c-fails", "d-erased"])
      await index.reportSession(tenantId, report(id, { status: "idle", updatedMs: BASE_MS + id.charCodeAt(0) }));
    const { eraser, calls } = recordingEraser({ "a-kept": "kept", "b-gone": "gone", "c-fails": "fails" });

    expect(await sweep(tenantId, eraser)).toEqual({ erased: 1, full: false });

    expect(calls.map((call) => call.split(" ")[1])).toEqual(["a-kept", "b-gone", "c-fails", "d-erased"]);
    expect(await listedIds(tenantId)).toEqual(["a-kept", "c-fails"]);
    // A row whose object was already gone was erased before: no second entry for it.
    expect(await deletedInLog(tenantId)).toEqual(["d-erased"]);
  });

  it("never takes a session that is running or waiting, however old", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("running", { status: "running" }));
    await index.reportSession(tenantId, report("waiting", { status: "waiting_approval" }));
    const { eraser, calls } = recordingEraser({});

    expect(await sweep(tenantId, eraser)).toEqual({ erased: 0, full: false });
    expect(calls).toEqual([]);
    expect(await listedIds(tenantId)).toEqual(["running", "waiting"]);
  });

  it("sweeps a shard's rows through the shard: children with their parent, the audit entries in the index's log", async () => {
    const tenantId = freshTenant();
    // Each session on the shard its id hashes to in a generation of 2; the children on both shards.
    const ids = ["s-parent", "s-child-1", "s-child-2", "s-child-3", "s-recent", "s-running"];
    const refOf = (id: string) => ({ generation: 1, shards: 2, k: fnv1a(id) % 2 });
    expect(new Set(["s-child-1", "s-child-2", "s-child-3"].map((id) => refOf(id).k)).size).toBe(2);
    await indexOf(tenantId).getSettings(tenantId); // the tenant entered, as any request of its enters it
    const reportTo = (id: string, fields: Parameters<typeof report>[1]) =>
      tenantShardStub(env, tenantId, refOf(id)).reportSession(tenantId, refOf(id), report(id, fields));
    await reportTo("s-parent", { status: "done" });
    for (const child of ["s-child-1", "s-child-2", "s-child-3"]) await reportTo(child, { status: "done", parent_session_id: "s-parent" });
    await reportTo("s-recent", { status: "done", updatedMs: NOW });
    await reportTo("s-running", { status: "running" });
    const { eraser, calls } = recordingEraser({});

    // The pass over the parent's shard finds its children on both.
    expect(await sweep(tenantId, eraser, refOf("s-parent"))).toEqual({ erased: 1, full: false });

    expect(calls[0]).toBe(`eraseIfExpired s-parent ${NOW - RULE.dayMs}`);
    expect(calls.slice(1).sort()).toEqual(["erase s-child-1", "erase s-child-2", "erase s-child-3"]);
    const left = await Promise.all(ids.map((id) => tenantShardStub(env, tenantId, refOf(id)).getSessionSummary(tenantId, id)));
    expect(
      left
        .filter((row) => row !== null)
        .map((row) => row!.id)
        .sort(),
    ).toEqual(["s-recent", "s-running"]);
    expect(await deletedInLog(tenantId)).toEqual(["s-child-1", "s-child-2", "s-child-3", "s-parent"]);
  });
});
