/**
 * A tenant's sessions spread over shard objects, through the public API: sessions land on every
 * shard (checked at each shard's own rows, not through the index), and the listing, its cursors
 * and filters, the counts, usage, bulk cancel, deletion and the run-slot total are exact across
 * shards and across a change of the shard count.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub, tenantShardStub } from "../../src/objects";
import { fnv1a, type ShardRef } from "../../src/shared/shard-layout";
import type { SessionSummary } from "../../src/session-config/types";
import { call, callJson } from "../support/api";
import { mockModel, uniqueKey } from "../support/mock-client";
import { bearer, freshTenant } from "../support/tokens";
import { agentOn, agentTool, author, childrenOf, PROVIDERS } from "../api/subagents/helpers";
import { type Caller, caller, createSession, getJson, post, text, toolUse, waitForStatus } from "../api/sessions/helpers";

const APPROVED_TOOL = { type: "builtin", name: "get_time", requires_approval: true };

const OPS_TENANT = freshTenant("ops-shards");
const platformAdmin = () => bearer({ tenantId: OPS_TENANT, subject: "ops-1", scopes: ["platform:admin"] });

async function setShards(tenantId: string, shards: number): Promise<Response> {
  return callJson(`/v1/admin/tenants/${tenantId}/shards`, "PUT", { shards }, await platformAdmin());
}

const refOf = (id: string, generation: number, shards: number): ShardRef => ({ generation, shards, k: fnv1a(id) % shards });

/** Every session the listing gives, page by page of `limit`, with the filter in `query`. */
async function listAll(who: Caller, query = "", limit = 3): Promise<SessionSummary[]> {
  const all: SessionSummary[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page: { data: SessionSummary[]; next_cursor: string | null } = await getJson(
      who,
      `/v1/sessions?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    all.push(...page.data);
    cursor = page.next_cursor;
    if (!cursor) return all;
  }
  throw new Error("the listing never ended");
}

const newestFirst = (a: SessionSummary, b: SessionSummary) =>
  Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Creates sessions without input until every one of the generation's `shards` holds at least `each`. */
async function fillShards(who: Caller, generation: number, shards: number, each: number, metadata: Record<string, string>) {
  const made: string[] = [];
  const per = new Array<number>(shards).fill(0);
  while (per.some((n) => n < each)) {
    const session = await createSession(who, { metadata });
    made.push(session.id);
    per[refOf(session.id, generation, shards).k]! += 1;
    if (made.length > 200) throw new Error("the hash never reached every shard");
  }
  return made;
}

describe("a tenant's sessions spread over shards", () => {
  it("keeps each session's row on its shard, and lists, filters, counts and pages them exactly across shards and generations", async () => {
    const who = await caller();
    // Before any shard: the index holds the first sessions (generation 0).
    const onIndex = [(await createSession(who, { metadata: { batch: "zero" } })).id];
    const set = await setShards(who.tenantId, 4);
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ generation: 1, shards: 4 });
    expect((await (await setShards(who.tenantId, 4)).json()) as unknown).toEqual({ generation: 1, shards: 4 });

    const first = await fillShards(who, 1, 4, 2, { batch: "one" });
    for (const id of first) {
      const ref = refOf(id, 1, 4);
      expect(await tenantShardStub(env, who.tenantId, ref).getSessionSummary(who.tenantId, id)).toMatchObject({ id, status: "idle" });
    }
    // Not on the index's own rows: the index finds them through the shards only.
    const index = tenantIndexStub(env, who.tenantId);
    const ownRows = await import("cloudflare:test").then(({ runInDurableObject }) =>
      runInDurableObject(index, (_instance, state) =>
        state.storage.sql
          .exec<{ id: string }>(`SELECT id FROM sessions`)
          .toArray()
          .map((row) => row.id),
      ),
    );
    expect(ownRows).toEqual(onIndex);

    // A change of the count: a new generation; the sessions made before stay where they are.
    expect(await (await setShards(who.tenantId, 3)).json()).toEqual({ generation: 2, shards: 3 });
    const second = await fillShards(who, 2, 3, 1, { batch: "two" });
    for (const id of second)
      expect(await tenantShardStub(env, who.tenantId, refOf(id, 2, 3)).getSessionSummary(who.tenantId, id)).not.toBeNull();
    for (const id of first)
      expect(await tenantShardStub(env, who.tenantId, refOf(id, 1, 4)).getSessionSummary(who.tenantId, id)).not.toBeNull();

    const everyId = [...onIndex, ...first, ...second];
    const listed = await listAll(who);
    expect(listed.map((s) => s.id).sort()).toEqual([...everyId].sort());
    expect(listed).toEqual([...listed].sort(newestFirst));
    expect(new Set(listed.map((s) => s.id)).size).toBe(listed.length);
    // A filter on every shard, paged by a size that cuts across them.
    expect((await listAll(who, "&metadata[batch]=one", 2)).map((s) => s.id).sort()).toEqual([...first].sort());
    expect((await listAll(who, "&metadata[batch]=two", 1)).map((s) => s.id).sort()).toEqual([...second].sort());
    // Counts and usage are sums over the index and every shard.
    const tenant = await getJson<{ counts: Record<string, number>; usage: { sessions_created: number } }>(who, "/v1/tenant");
    expect(tenant.counts.idle).toBe(everyId.length);
    expect(tenant.usage.sessions_created).toBe(everyId.length);

    // A session on a shard is deleted where it is, and the audit entry is the index's.
    const gone = first[0]!;
    expect((await call(`/v1/sessions/${gone}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect(await tenantShardStub(env, who.tenantId, refOf(gone, 1, 4)).getSessionSummary(who.tenantId, gone)).toBeNull();
    expect((await listAll(who, "", 50)).map((s) => s.id)).not.toContain(gone);
  });

  it("keeps the tenant's max_concurrent_runs exact over shards that borrow slots, and every queued run still ends", async () => {
    const who = await caller();
    const index = tenantIndexStub(env, who.tenantId);
    // Its runs are polled every 20 ms: a request rate no caller share limits.
    await index.setLimitOverrides(who.tenantId, { max_concurrent_runs: 3, requests_per_minute: 100_000 });
    expect((await setShards(who.tenantId, 4)).status).toBe(200);
    const model = mockModel(uniqueKey("model"));
    const runs = 9;
    await model.script(...Array.from({ length: runs }, () => ({ reply: { content: [text("done")] }, delay_ms: 600 })));
    // Three runs take the three slots; the others are refused at create (429), as on one index.
    const started: string[] = [];
    let refused = 0;
    for (let i = 0; i < runs; i++) {
      const res = await callJson("/v1/sessions", "POST", { input: `run ${i}`, model: model.key }, who.headers);
      if (res.status === 201) started.push(((await res.json()) as { id: string }).id);
      else {
        expect(res.status).toBe(429);
        refused++;
        await res.body?.cancel();
      }
    }
    expect(started.length).toBe(3);
    expect(refused).toBe(runs - 3);
    for (const id of started) await waitForStatus(who, id, ["done"], 10_000);

    // Queued runs: approved while every slot is taken, they queue on their own shards and start as slots free.
    const waiting: string[] = [];
    for (let i = 0; i < 5; i++) {
      const approvals = mockModel(uniqueKey("model"));
      await approvals.script(
        { reply: { content: [toolUse(`toolu_s${i}`, "get_time")] } },
        { reply: { content: [text("after")] }, delay_ms: 300 },
      );
      const session = await createSession(who, { input: "time?", model: approvals.key, tools: [APPROVED_TOOL] });
      await waitForStatus(who, session.id, ["waiting_approval"]);
      waiting.push(session.id);
    }
    const busyModel = mockModel(uniqueKey("model"));
    await busyModel.script({ hang: true }, { hang: true }, { hang: true });
    const busy = [];
    for (let i = 0; i < 3; i++) busy.push((await createSession(who, { input: "busy", model: busyModel.key })).id);
    for (let i = 0; i < waiting.length; i++) {
      const approved = await post(who, `/v1/sessions/${waiting[i]}/tool-calls/toolu_s${i}/approve`);
      expect(approved.status).toBe(200);
      expect(((await approved.json()) as { status: string }).status).toBe("queued");
    }
    for (const id of busy) await post(who, `/v1/sessions/${id}/cancel`).then((res) => res.body?.cancel());
    let most = 0;
    const deadline = Date.now() + 20_000;
    for (;;) {
      most = Math.max(most, (await listAll(who, "&status=running", 50)).length);
      const settled = await Promise.all(waiting.map((id) => getJson<{ status: string }>(who, `/v1/sessions/${id}`)));
      if (settled.every((s) => s.status === "done")) break;
      if (Date.now() > deadline) throw new Error(`queued runs left: ${settled.map((s) => s.status).join(", ")}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(most).toBeLessThanOrEqual(3);
    // The usage rollup sums every shard's rows: the tenant's runs and tokens, as the sessions themselves count them.
    const sessions = await Promise.all(
      [...started, ...waiting, ...busy].map((id) =>
        getJson<{ usage: { input_tokens: number; output_tokens: number; steps: number } }>(who, `/v1/sessions/${id}`),
      ),
    );
    const tenantAdmin = await caller(who.tenantId, ["tenant:admin"]);
    const report = await getJson<{ totals: { runs: number; input_tokens: number; output_tokens: number; steps: number } }>(
      tenantAdmin,
      "/v1/tenant/usage?group_by=model,created_by",
    );
    expect(report.totals).toMatchObject({
      runs: started.length + waiting.length + busy.length,
      steps: sessions.reduce((sum, s) => sum + s.usage.steps, 0),
      input_tokens: sessions.reduce((sum, s) => sum + s.usage.input_tokens, 0),
      output_tokens: sessions.reduce((sum, s) => sum + s.usage.output_tokens, 0),
    });
    // The index's ledger never lent more than the total.
    const lent = await import("cloudflare:test").then(({ runInDurableObject }) =>
      runInDurableObject(
        index,
        (_instance, state) => state.storage.sql.exec<{ n: number | null }>(`SELECT SUM(leased) AS n FROM slot_leases`).one().n ?? 0,
      ),
    );
    expect(lent).toBeLessThanOrEqual(3);
  });

  it("cancels in bulk on every shard", async () => {
    const who = await caller();
    expect((await setShards(who.tenantId, 4)).status).toBe(200);
    const model = mockModel(uniqueKey("model"));
    await model.script(...Array.from({ length: 8 }, () => ({ hang: true as const })));
    const hanging: string[] = [];
    for (let i = 0; i < 8; i++) hanging.push((await createSession(who, { input: `hang ${i}`, model: model.key })).id);
    expect(new Set(hanging.map((id) => refOf(id, 1, 4).k)).size).toBeGreaterThan(1);
    for (const id of hanging) await waitForStatus(who, id, ["running"]);
    const cancel = await callJson(`/v1/admin/tenants/${who.tenantId}/sessions/cancel`, "POST", {}, await platformAdmin());
    expect(cancel.status).toBe(200);
    expect(((await cancel.json()) as { cancelled: number }).cancelled).toBe(8);
    for (const id of hanging) await waitForStatus(who, id, ["cancelled"]);
  });

  it("deletes a sharded tenant's sessions and every shard's storage", async () => {
    const who = await caller(freshTenant("shard-del"));
    expect((await setShards(who.tenantId, 2)).status).toBe(200);
    const ids = await fillShards(who, 1, 2, 1, {});
    const admin = await platformAdmin();
    const begun = await call(`/v1/admin/tenants/${who.tenantId}`, { method: "DELETE", headers: admin });
    expect(begun.status).toBe(202);
    // Every session is on a shard: counted there, not on the index alone.
    expect(((await begun.json()) as { deletion: { sessions_left: number } }).deletion.sessions_left).toBe(ids.length);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await call(`/v1/admin/tenants/${who.tenantId}`, { headers: admin });
      const body = (await res.json()) as { deletion?: { status: string } | null };
      if (body.deletion?.status === "deleted") break;
      if (Date.now() > deadline) throw new Error("the deletion did not finish");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const k of [0, 1]) {
      const footprint = await tenantShardStub(env, who.tenantId, { generation: 1, k }).footprint();
      expect(footprint).toMatchObject({ rows: 0 });
    }
    for (const id of ids) expect(await tenantShardStub(env, who.tenantId, refOf(id, 1, 2)).getSessionSummary(who.tenantId, id)).toBeNull();
    // The index is gone, and the storage report still names both shards (from the platform's audit log): each holds nothing.
    const report = (await (await call(`/v1/admin/tenants/${who.tenantId}/storage`, { headers: admin })).json()) as {
      objects: { object: string; id: string | null; rows: number; kv_keys: number }[];
    };
    const shards = report.objects.filter((object) => object.object === "tenant_shard");
    expect(shards.map((object) => object.id).sort()).toEqual(["1/0", "1/1"]);
    for (const object of shards) expect(object).toMatchObject({ rows: 0, kv_keys: 0 });
  });

  it("places sub-agents' sessions by their own ids in their parent's generation, finds them by id, and deletes the whole tree", async () => {
    const who = await author();
    expect((await setShards(who.tenantId, 4)).status).toBe(200);
    const helper = await agentOn(who, PROVIDERS[0], { system: "You help." });
    await helper.model.script(...Array.from({ length: 4 }, (_, i) => ({ reply: { content: [text(`part ${i}`)] } })));
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [0, 1, 2, 3].map((i) => toolUse(`call_${i}`, "help", { input: `part ${i}` })) } },
      { reply: { content: [text("all parts back")] } },
    );
    const parent = await createSession(who, { input: "four parts", model: parentModel.key, tools: [agentTool("help", helper.id)] });
    expect((await waitForStatus(who, parent.id, ["done", "failed"], 20_000)).status).toBe("done");
    const children = await childrenOf(who, parent.id);
    expect(children).toHaveLength(4);
    // Each child is on the shard its own id hashes to in the parent's generation, and found there by id.
    for (const child of children) {
      expect(await tenantShardStub(env, who.tenantId, refOf(child.id, 1, 4)).getSessionSummary(who.tenantId, child.id)).toMatchObject({
        id: child.id,
        parent_session_id: parent.id,
      });
      expect(await tenantIndexStub(env, who.tenantId).getSessionSummary(who.tenantId, child.id)).toMatchObject({ id: child.id });
    }
    // Deleting the parent erases its children wherever they are.
    expect((await call(`/v1/sessions/${parent.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect(await listAll(who, "", 50)).toEqual([]);
    for (const child of children)
      expect(await tenantShardStub(env, who.tenantId, refOf(child.id, 1, 4)).getSessionSummary(who.tenantId, child.id)).toBeNull();
  });

  it("forks a session onto the index with its first run when the tenant went back to one shard", async () => {
    const who = await caller();
    expect((await setShards(who.tenantId, 2)).status).toBe(200);
    expect(await (await setShards(who.tenantId, 1)).json()).toEqual({ generation: 2, shards: 1 });
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("forked and answered")] } });
    const source = await createSession(who, { model: model.key });
    const res = await callJson(`/v1/sessions/${source.id}/fork`, "POST", { input: "go on" }, who.headers);
    const body = (await res.json()) as { id?: string };
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect((await waitForStatus(who, body.id!, ["done"])).status).toBe("done");
    // On the index: its own rows hold it.
    expect(await tenantIndexStub(env, who.tenantId).getSessionSummary(who.tenantId, body.id!)).toMatchObject({ id: body.id });
  });
});
