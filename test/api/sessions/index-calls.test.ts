/**
 * How often `POST /v1/sessions` asks the tenant's index, counted at the index itself, so the
 * session object's calls count with the gateway's: each is a round trip to one object every
 * request of the tenant goes through. The index runs in this isolate: its methods are counted on
 * the prototype, only on this tenant's index (other files' sessions have other tenants).
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { sessionStub, tenantIndexName, tenantIndexStub } from "../../../src/objects";
import { TenantIndex } from "../../../src/tenants/tenant-index";
import type { AdmitRunInput } from "../../../src/tenants/types";
import { callJson } from "../../support/api";
import { bearer, freshTenant } from "../../support/tokens";
import { fnv1a } from "../../../src/shared/shard-layout";
import { ADMISSION_FRESH_MS } from "../../../src/tenants/shards/admission";
import { windowStartOf } from "../../../src/tenants/rate-limit";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { type Caller, caller, cancelQuietly, createSession, text } from "./helpers";

type Spied = MockInstance<(...args: unknown[]) => unknown>;

/** Counts every call of the tenant's index from here on; `calls()` lists them by method, in order. */
function countIndexCalls(tenantId: string): { calls: () => string[]; spies: Map<string, Spied> } {
  const id = env.TENANT_INDEX.idFromName(tenantIndexName(tenantId));
  const names = Object.getOwnPropertyNames(TenantIndex.prototype).filter((name) => name !== "constructor" && name !== "alarm");
  const order: { name: string; at: number }[] = [];
  const spies = new Map<string, Spied>();
  for (const name of names) {
    const spy = vi.spyOn(TenantIndex.prototype, name as keyof TenantIndex);
    spies.set(name, spy as unknown as Spied);
  }
  return {
    spies,
    calls: () => {
      order.length = 0;
      for (const [name, spy] of spies)
        spy.mock.contexts.forEach((self: unknown, i: number) => {
          if ((self as unknown as { ctx: DurableObjectState }).ctx.id.equals(id))
            order.push({ name, at: spy.mock.invocationCallOrder[i]! });
        });
      return order.sort((a, b) => a.at - b.at).map((call) => call.name);
    },
  };
}

/** The calls made until the 201 arrived (the run's own reports come later, after its slow first model call). */
async function createCounted(who: Caller, body: Record<string, unknown>): Promise<{ status: number; calls: string[] }> {
  const counter = countIndexCalls(who.tenantId);
  const res = await callJson("/v1/sessions", "POST", body, who.headers);
  const calls = counter.calls();
  const session = (await res.json()) as { id?: string };
  if (session.id) await cancelQuietly(who, session.id);
  return { status: res.status, calls };
}

async function slowModel(): Promise<string> {
  const model = mockModel(uniqueKey("model"));
  await model.script({ reply: { content: [text("hi")] }, delay_ms: 2_000 });
  return model.key;
}

describe("POST /v1/sessions: every call to the tenant index, the session object's included", () => {
  afterEach(() => vi.restoreAllMocks());

  it("admits the request, then the run and its listing in one call from the session object: 2 calls (3 before)", async () => {
    const who = await caller();
    const { status, calls } = await createCounted(who, { input: "hi", model: await slowModel() });
    expect(status).toBe(201);
    expect(calls).toEqual(["admitRequest", "admitSession"]);
  });

  it("asks no more when the tenant has a daily budget: the run's admission checks it", async () => {
    const who = await caller();
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_tokens_per_day: 1_000_000 });
    const { status, calls } = await createCounted(who, { input: "hi", model: await slowModel() });
    expect(status).toBe(201);
    expect(calls).toEqual(["admitRequest", "admitSession"]);
  });

  it("admits the request and lists the session for a session without input: 2 calls", async () => {
    const who = await caller();
    const { status, calls } = await createCounted(who, {});
    expect(status).toBe(201);
    expect(calls).toEqual(["admitRequest", "reportSession"]);
  });
});

describe("POST /v1/sessions of a sharded tenant: every call to the tenant index", () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    { budget: false, expected: [], title: "asks the index nothing" },
    {
      budget: true,
      expected: ["shardSpend"],
      title: "with a daily budget, asks it once, to judge the run's budgets and hold its reservation",
    },
  ])(
    "$title once the caller's shard holds the tenant's state and the session's shard a lease: admission, the run and its listing go to shards",
    async ({ budget, expected }) => {
      const who = await caller();
      const admin = await bearer({ tenantId: freshTenant("ops-calls"), subject: "ops-1", scopes: ["platform:admin"] });
      expect((await callJson(`/v1/admin/tenants/${who.tenantId}/shards`, "PUT", { shards: 2 }, admin)).status).toBe(200);
      if (budget) await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_tokens_per_day: 1_000_000 });
      const model = mockModel(uniqueKey("model"));
      await model.script(...Array.from({ length: 12 }, () => ({ hang: true as const })));
      // Warm both shards: each has taken a lease (with spares) and heard whether the tenant is suspended;
      // the caller's shard has read the tenant's state and borrowed part of its request window.
      const warm: string[] = [];
      const warmedFrom = Date.now();
      const shardsUsed = new Set<number>();
      // One run each (a second on a shard is cancelled), so the counted one fits the lease either shard took.
      for (let tries = 0; shardsUsed.size < 2 && tries < 10; tries++) {
        const session = await createSession(who, { input: "warm", model: model.key });
        const shard = fnv1a(session.id) % 2;
        if (shardsUsed.has(shard)) await cancelQuietly(who, session.id);
        else warm.push(session.id);
        shardsUsed.add(shard);
      }
      expect(shardsUsed.size).toBe(2);
      try {
        const { status, calls } = await createCounted(who, { input: "counted", model: model.key });
        expect(status).toBe(201);
        // The caller's shard reads the tenant's state again only once its copy is older than
        // ADMISSION_FRESH_MS (a slow machine's warm-up), and borrows its request window again only in
        // a new minute: one call of each at most, and none on a quick run within one minute.
        const newMinute = windowStartOf(warmedFrom) !== windowStartOf(Date.now());
        expect(calls.filter((name) => name !== "admissionView" && !(newMinute && name === "leaseRate"))).toEqual(expected);
        expect(new Set(calls).size).toBe(calls.length);
        if (Date.now() - warmedFrom < ADMISSION_FRESH_MS && !newMinute) expect(calls).toEqual(expected);
      } finally {
        for (const id of warm) await cancelQuietly(who, id);
      }
    },
  );
});

describe("POST /v1/sessions refused by the run's admission", () => {
  afterEach(() => vi.restoreAllMocks());

  it("answers 429 with Retry-After and leaves no session, no row and no count behind", async () => {
    const who = await caller();
    const index = tenantIndexStub(env, who.tenantId);
    await index.setLimitOverrides(who.tenantId, { max_concurrent_runs: 1 });
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const first = await createSession(who, { input: "first", model: model.key });
    try {
      const { spies } = countIndexCalls(who.tenantId);
      const refused = await callJson("/v1/sessions", "POST", { input: "second", model: model.key }, who.headers);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as { detail: string }).detail).toBe("The tenant already has 1 runs going.");
      // The refused session's id, as its object asked the index with it.
      const asked = spies.get("admitSession")!.mock.calls.map((args: unknown[]) => (args[1] as AdmitRunInput).sessionId);
      expect(asked).toHaveLength(1);
      const refusedId = asked[0]!;
      expect(refusedId).not.toBe(first.id);
      expect(await sessionStub(env, who.tenantId, refusedId).get()).toEqual({ ok: false, reason: "session_not_found" });
      expect(await index.getSessionSummary(who.tenantId, refusedId)).toBeNull();
      const listed = await index.listSessions(who.tenantId, { limit: 10 });
      expect(listed.data.map((s) => s.id)).toEqual([first.id]);
      const [today] = await index.usage(who.tenantId, { days: 1 });
      expect(today!.sessions_created).toBe(1);
    } finally {
      await cancelQuietly(who, first.id);
    }
  });
});
