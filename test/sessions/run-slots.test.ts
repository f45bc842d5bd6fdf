/**
 * The claim / check again / give back / go on pattern around a run slot, in one helper: a slot
 * claimed for a change that no longer stands after the claim's await is given back, and only
 * then; the change goes on `running` with a slot, `queued` without, and a suspended tenant's run
 * is cancelled; a session erased meanwhile raises `SessionGone`.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionObject } from "../../src/sessions/object/session-object";
import { RunSlots, type SlotClaim } from "../../src/sessions/object/engine/slots";
import { SessionGone } from "../../src/sessions/object/engine/gone";
import type { SessionStore, RunState } from "../../src/sessions/object/store/store";
import { createAndStart, newTestSession, waitForStatus } from "../support/agent-session";

afterEach(() => vi.restoreAllMocks());

/** A helper whose tenant index answers every claim with `claim`, counting claims and releases. */
function slots(claim: SlotClaim, exists = true) {
  const calls = { claims: 0, releases: 0, cancels: 0 };
  const index = {
    acquireRun: async () => {
      calls.claims++;
      return claim === "ok" ? { ok: true } : { ok: false, code: claim };
    },
    releaseRun: async () => {
      calls.releases++;
    },
  };
  // The runtime's own answer to whether it places objects by jurisdiction (src/objects.ts); the index is this stand-in.
  const namespace = {
    idFromName: (name: string) => name,
    get: () => index,
    jurisdiction: (j: string) => env.TENANT_INDEX.jurisdiction(j as never),
  };
  const fakeEnv = { TENANT_INDEX: namespace } as unknown as Cloudflare.Env;
  const session = { tenant_id: "t-1", id: "ses_1", limits: { max_concurrent_runs: 1 } };
  const store = { exists: () => exists, requireSession: () => session } as unknown as SessionStore;
  return { helper: new RunSlots(store, fakeEnv, () => calls.cancels++), calls };
}

describe("RunSlots.goOn", () => {
  it.each([
    {
      needed: false,
      claim: "ok",
      refusal: null,
      exists: true,
      want: { went: "running" },
      claims: 0,
      releases: 0,
      why: "no slot needed: nothing asked",
    },
    {
      needed: true,
      claim: "ok",
      refusal: null,
      exists: true,
      want: { went: "running" },
      claims: 1,
      releases: 0,
      why: "claimed and still wanted: kept",
    },
    {
      needed: true,
      claim: "busy",
      refusal: null,
      exists: true,
      want: { went: "queued" },
      claims: 1,
      releases: 0,
      why: "none free: the change goes on queued",
    },
    {
      needed: true,
      claim: "ok",
      refusal: "moved",
      exists: true,
      want: { refused: "moved" },
      claims: 1,
      releases: 1,
      why: "claimed for a change that no longer stands: given back",
    },
    {
      needed: true,
      claim: "busy",
      refusal: "moved",
      exists: true,
      want: { refused: "moved" },
      claims: 1,
      releases: 0,
      why: "refused with no slot claimed: nothing to give back",
    },
    {
      needed: true,
      claim: "ok",
      refusal: null,
      exists: false,
      want: { gone: true },
      claims: 1,
      releases: 1,
      why: "erased during the claim: given back",
    },
    {
      needed: false,
      claim: "ok",
      refusal: "moved",
      exists: true,
      want: { refused: "moved" },
      claims: 0,
      releases: 0,
      why: "no slot was needed: none given back",
    },
    {
      needed: true,
      claim: "suspended",
      refusal: null,
      exists: true,
      want: { went: "queued" },
      claims: 1,
      releases: 0,
      cancels: 1,
      why: "a suspended tenant: the change is made, then the run cancelled",
    },
    {
      needed: true,
      claim: "suspended",
      refusal: null,
      exists: true,
      instead: true,
      want: {},
      claims: 1,
      releases: 0,
      cancels: 1,
      why: "a suspended tenant, cancelled instead of the change: only the cancel",
    },
  ] as const)("$why", async (row) => {
    const { needed, claim, refusal, exists, want, claims, releases } = row;
    const { helper, calls } = slots(claim, exists);
    const got: { went?: string; refused?: string; gone?: boolean } = {};
    try {
      const answer = await helper.goOn({
        needed,
        stands: () => refusal,
        go: (runnable) => (got.went = runnable),
        suspended: "instead" in row ? "instead" : "after",
      });
      if (answer !== null) got.refused = answer;
    } catch (error) {
      if (!(error instanceof SessionGone)) throw error;
      got.gone = true;
    }
    expect(got).toEqual(want);
    expect(calls).toEqual({ claims, releases, cancels: "cancels" in row ? row.cancels : 0 });
  });
});

describe("every run-slot claim", () => {
  it("is made through goOn, by an approval, an interrupt of a waiting run, a resume and a queued session's alarm", async () => {
    // The claim is private to RunSlots: the type checker keeps every caller on goOn. Here
    // the four controls that need a slot are seen to ask for it through the helper.
    const checked = vi.spyOn(RunSlots.prototype, "goOn");
    const t = newTestSession();
    const toolUse = (id: string) => ({ type: "tool_use", id, name: "get_time", input: {} });
    const done = { reply: { content: [{ type: "text", text: "done" }] } };
    await t.model.script(
      { reply: { content: [toolUse("toolu_1")] } },
      { reply: { content: [toolUse("toolu_2")] } },
      { reply: { content: [toolUse("toolu_3")] } },
      done,
      done,
    );
    await createAndStart(t, "go", { tools: [{ type: "builtin", name: "get_time", requires_approval: true }] });
    await waitForStatus(t, ["waiting_approval"]);
    // An approval that lets the run go on needs a slot again.
    expect(await t.stub.approve("toolu_1")).toMatchObject({ ok: true, value: { status: "running" } });
    await waitForStatus(t, ["waiting_approval"]);
    // A waiting run holds no slot: the run that interrupts it needs one.
    expect(await t.stub.interrupt("instead")).toMatchObject({ ok: true, value: { status: "running" } });
    await waitForStatus(t, ["waiting_approval"]);
    // A paused run with work to run takes one again on resume.
    expect(await t.stub.pause()).toMatchObject({ ok: true, value: { status: "paused" } });
    expect(await t.stub.deny("toolu_3", null)).toMatchObject({ ok: true, value: { status: "paused" } });
    expect(await t.stub.resume()).toMatchObject({ ok: true, value: { status: "running" } });
    await waitForStatus(t, ["done"]);
    // A queued session's alarm asks for one again.
    await runInDurableObject(t.stub, async (instance: SessionObject, state) => {
      state.storage.kv.put("run", { ...state.storage.kv.get<RunState>("run")!, status: "queued" });
      await instance.alarm();
    });
    await waitForStatus(t, ["done"]);

    expect(checked.mock.calls.filter(([change]) => change.needed).length).toBeGreaterThanOrEqual(4);
  });
});

/** Never called: it fails the type check if a claim or a release can be made around the helper. */
export function aSlotIsClaimedOnlyThroughTheHelper(slots: RunSlots): void {
  // @ts-expect-error private: a claim is made by goOn only
  void slots.claim;
  // @ts-expect-error private: a release is made by goOn only
  void slots.release;
}
