/**
 * What a shard keeps to admit a sharded tenant's callers (src/tenants/shards/admission.ts), with
 * the index it asks replaced by a recorder and the clock held: each copy is used until it is
 * `ADMISSION_FRESH_MS` old or the index says it changed, never after; a read under way when a
 * change is told is not shared with later requests; and the parts of the tenant's windows are kept
 * in the window the index counted them in, whatever minute the request was stamped with.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AdmissionView, AdmissionViewInput, RateAsk } from "../../src/tenants/admission-flow";
import type { ApiKeyRecord } from "../../src/tenants/api-key-store";
import { type RateGrant, RATE_WINDOW_MS } from "../../src/tenants/rate-limit";
import { ADMISSION_FRESH_MS, ShardAdmission } from "../../src/tenants/shards/admission";
import { RatePools } from "../../src/tenants/shards/rate-pools";
import { readConfigState } from "../../src/tenants/tenant-config";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";

const WINDOW = Math.floor(Date.UTC(2032, 0, 5, 8, 0, 0) / RATE_WINDOW_MS) * RATE_WINDOW_MS;

afterEach(() => vi.restoreAllMocks());

/** An index that answers from `state` and records what it was asked. */
function recordingIndex(record: ApiKeyRecord | null) {
  const asked: AdmissionViewInput[] = [];
  const kv = { get: () => undefined } as unknown as SyncKvStorage;
  const config = readConfigState(kv, BUILTIN_DEFAULT_LIMITS);
  let release: (() => void) | null = null;
  const index = {
    hold: () => new Promise<void>((resolve) => (release = resolve)),
    asked,
    admissionView: async (_tenantId: string, input: AdmissionViewInput): Promise<AdmissionView> => {
      asked.push(input);
      const gate = release === null ? null : index.gate;
      if (gate) await gate;
      return { state: { config, deletionBegun: false }, ...(input.keyId ? { record } : {}) };
    },
    gate: null as Promise<void> | null,
    leaseRate: async (_tenantId: string, asks: RateAsk[]): Promise<RateGrant[]> =>
      asks.map(() => ({ granted: 5, remaining: 100, start: WINDOW })),
    open: () => release?.(),
  };
  return index;
}

const KEY = { key_id: "k1", last_used_at: null } as unknown as ApiKeyRecord;

describe("what a shard keeps to admit", () => {
  it("reads the key again only once its copy is old or a change was told", async () => {
    let now = WINDOW;
    vi.spyOn(Date, "now").mockImplementation(() => now);
    const index = recordingIndex(KEY);
    const admission = new ShardAdmission("t-1", 4, () => index);
    const find = async () => (await admission.place({ keyId: "k1" })).findApiKey("k1");
    expect(await find()).toEqual(KEY);
    expect(index.asked).toEqual([{ keyId: "k1" }]);
    now += ADMISSION_FRESH_MS - 1;
    await find();
    expect(index.asked).toHaveLength(1);
    admission.forget({ keyId: "k1" });
    await find();
    expect(index.asked).toHaveLength(2);
    now += ADMISSION_FRESH_MS;
    await find();
    expect(index.asked).toHaveLength(3);
    // A use is kept in the copy, so the gateway records it once, not on every request.
    admission.used("k1", now);
    expect((await find())?.last_used_at).toBe(new Date(now).toISOString());
  });

  it("does not let a request after a change join a read begun before it", async () => {
    vi.spyOn(Date, "now").mockImplementation(() => WINDOW);
    const index = recordingIndex(KEY);
    index.gate = index.hold();
    const admission = new ShardAdmission("t-1", 4, () => index);
    const before = admission.place({ keyId: "k1" });
    await Promise.resolve();
    admission.forget({ keyId: "k1" });
    const after = admission.place({ keyId: "k1" });
    await Promise.resolve();
    index.open();
    await Promise.all([before, after]);
    // Two reads: the one under way when the revocation was told, and its own.
    expect(index.asked).toHaveLength(2);
  });

  it("keeps a part in the window the index counted it in, and uses it for a request stamped late", async () => {
    const grants: RateGrant[] = [
      { granted: 2, remaining: 10, start: WINDOW + RATE_WINDOW_MS },
      { granted: 5, remaining: 20, start: WINDOW },
      { granted: 0, remaining: 0, start: WINDOW + RATE_WINDOW_MS },
    ];
    const lend = vi.fn(async () => [grants.shift()!]);
    const pools = new RatePools(lend, 1);
    const window = { key: "tenant", limit: 100 };
    // Stamped in the earlier minute, but the index counted the part in the later one.
    const late = await pools.ready([window], WINDOW + 59_000);
    expect(late.take([window], WINDOW + 59_000).ok).toBe(true);
    const next = await pools.ready([window], WINDOW + RATE_WINDOW_MS + 1);
    expect(next.take([window], WINDOW + RATE_WINDOW_MS + 1).ok).toBe(true);
    expect(lend).toHaveBeenCalledTimes(1);
    // A part of an older window than the pool's is lost, never the pool; then the window is used up,
    // and the shard stops asking.
    const third = await pools.ready([window], WINDOW + RATE_WINDOW_MS + 2);
    expect(lend).toHaveBeenCalledTimes(3);
    expect(third.take([window], WINDOW + RATE_WINDOW_MS + 2).ok).toBe(false);
    const fourth = await pools.ready([window], WINDOW + RATE_WINDOW_MS + 3);
    expect(fourth.take([window], WINDOW + RATE_WINDOW_MS + 3).ok).toBe(false);
    expect(lend).toHaveBeenCalledTimes(3);
  });

  it("does not keep a window used up by an answer to a borrow begun before the tenant's config changed", async () => {
    let answerFirst: ((grants: RateGrant[]) => void) | null = null;
    const lend = vi
      .fn<(asks: RateAsk[], now: number) => Promise<RateGrant[]>>()
      .mockImplementationOnce(() => new Promise((resolve) => (answerFirst = resolve)))
      .mockImplementation(async () => [{ granted: 3, remaining: 50, start: WINDOW }]);
    const pools = new RatePools(lend, 1);
    const window = { key: "tenant", limit: 100 };
    const readied = pools.ready([window], WINDOW + 1);
    await Promise.resolve();
    // Refused while suspended, answered after the unsuspension was told.
    pools.refresh();
    answerFirst!([{ granted: 0, remaining: 0, start: WINDOW }]);
    expect((await readied).take([window], WINDOW + 1).ok).toBe(true);
    expect(lend).toHaveBeenCalledTimes(2);
  });
});
