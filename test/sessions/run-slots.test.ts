/**
 * The claim / check again / give back pattern around a run slot, in one helper: a slot claimed
 * for a change that no longer stands after the claim's await is given back, and only then.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunSlots, type SlotClaim } from "../../src/sessions/object/engine/slots";
import type { AgentStore } from "../../src/sessions/object/store/store";

afterEach(() => vi.restoreAllMocks());

function slots(claim: SlotClaim, exists = true) {
  const store = { exists: () => exists } as unknown as AgentStore;
  const helper = new RunSlots(store, env);
  const claimed = vi.spyOn(helper, "claim").mockResolvedValue(claim);
  const released = vi.spyOn(helper, "release").mockResolvedValue();
  return { helper, claimed, released };
}

describe("RunSlots.claimChecked", () => {
  it.each([
    { needed: false, claim: "ok", refusal: null, exists: true, want: { ok: true, slot: "ok" }, claims: 0, releases: 0, why: "no slot needed: nothing asked" },
    { needed: true, claim: "ok", refusal: null, exists: true, want: { ok: true, slot: "ok" }, claims: 1, releases: 0, why: "claimed and still wanted: kept" },
    { needed: true, claim: "busy", refusal: null, exists: true, want: { ok: true, slot: "busy" }, claims: 1, releases: 0, why: "none free: the change goes on queued" },
    { needed: true, claim: "ok", refusal: "moved", exists: true, want: { ok: false, refusal: "moved" }, claims: 1, releases: 1, why: "claimed for a change that no longer stands: given back" },
    { needed: true, claim: "busy", refusal: "moved", exists: true, want: { ok: false, refusal: "moved" }, claims: 1, releases: 0, why: "refused with no slot claimed: nothing to give back" },
    { needed: true, claim: "ok", refusal: null, exists: false, want: { ok: false, refusal: "gone" }, claims: 1, releases: 1, why: "erased during the claim: given back" },
    { needed: false, claim: "ok", refusal: "moved", exists: true, want: { ok: false, refusal: "moved" }, claims: 0, releases: 0, why: "no slot was needed: none given back" },
  ] as const)("$why", async ({ needed, claim, refusal, exists, want, claims, releases }) => {
    const { helper, claimed, released } = slots(claim, exists);
    expect(await helper.claimChecked(needed, () => refusal)).toEqual(want);
    expect({ claims: claimed.mock.calls.length, releases: released.mock.calls.length }).toEqual({ claims, releases });
  });
});
