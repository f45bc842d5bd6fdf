import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { KvStretchCache } from "../../src/sessions/object/engine/kv-stretch";
import { SessionStore, type RunState } from "../../src/sessions/object/store/store";

/** Real storage of a fresh, never-created session object, with its KV reads counted. */
async function withStorage<T>(
  fn: (storage: DurableObjectStorage, counted: { kv: SyncKvStorage; reads: string[] }) => Promise<T>,
): Promise<T> {
  const stub = env.SESSION.get(env.SESSION.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const reads: string[] = [];
    const kv = state.storage.kv;
    const counted = {
      reads,
      kv: {
        get: (key: string) => {
          reads.push(key);
          return kv.get(key);
        },
        put: (key: string, value: unknown) => kv.put(key, value),
        delete: (key: string) => kv.delete(key),
      } as unknown as SyncKvStorage,
    };
    return fn(state.storage, counted);
  });
}

describe("the session object's key-value reads, kept for one synchronous stretch", () => {
  it("reads a key from storage once per stretch, and again after an await", async () => {
    await withStorage(async (storage, counted) => {
      storage.kv.put("run", { generation: 1 });
      const cache = new KvStretchCache(counted.kv);
      expect(cache.get("run")).toEqual({ generation: 1 });
      expect(cache.get("run")).toEqual({ generation: 1 });
      expect(cache.get("missing")).toBeUndefined();
      expect(cache.get("missing")).toBeUndefined();
      expect(counted.reads).toEqual(["run", "missing"]);
      await null;
      cache.get("run");
      expect(counted.reads).toEqual(["run", "missing", "run"]);
    });
  });

  it("keeps a key named as written only through it past the stretch, until forget", async () => {
    await withStorage(async (storage, counted) => {
      storage.kv.put("run", { generation: 1 });
      storage.kv.put("session", { id: "ses_a" });
      const cache = new KvStretchCache(counted.kv, new Set(["session"]));
      cache.get("run");
      cache.get("session");
      cache.get("missing");
      await null;
      cache.get("run");
      cache.get("session");
      expect(counted.reads).toEqual(["run", "session", "missing", "run"]);
      cache.forget();
      cache.get("session");
      expect(counted.reads).toEqual(["run", "session", "missing", "run", "session"]);
    });
  });

  it("sees a write made behind its back once the stretch has ended", async () => {
    await withStorage(async (storage, counted) => {
      storage.kv.put("run", { generation: 1 });
      const cache = new KvStretchCache(counted.kv);
      expect(cache.get<{ generation: number }>("run")?.generation).toBe(1);
      // As another request, an alarm or a test writes between two awaits of a unit.
      await Promise.resolve();
      storage.kv.put("run", { generation: 3 });
      expect(cache.get<{ generation: number }>("run")?.generation).toBe(3);
    });
  });

  it("keeps its own writes and deletions without reading them back", async () => {
    await withStorage(async (storage, counted) => {
      const cache = new KvStretchCache(counted.kv);
      cache.put("run", { generation: 2 });
      expect(cache.get("run")).toEqual({ generation: 2 });
      cache.delete("run");
      expect(cache.get("run")).toBeUndefined();
      expect(counted.reads).toEqual([]);
      expect(storage.kv.get("run")).toBeUndefined();
    });
  });

  it("forgets the writes of a transaction that rolled back", async () => {
    await withStorage(async (storage) => {
      const store = new SessionStore(storage);
      storage.kv.put("run", { generation: 1 });
      const before = store.run();
      expect(() =>
        store.transaction(() => {
          store.putRun({ ...before, generation: 2 } as RunState);
          throw new Error("a write failed");
        }),
      ).toThrow("a write failed");
      // The same stretch: the stored value, not the one the rolled-back transaction wrote.
      expect(store.run().generation).toBe(1);
      expect(storage.kv.get<RunState>("run")?.generation).toBe(1);
    });
  });
});

describe("the session's settings and its outbox", () => {
  it("are read from storage once, kept across awaits, follow the store's own writes, and are read again after a rollback or forget", async () => {
    await withStorage(async (storage, counted) => {
      storage.kv.put("run", { generation: 1 });
      storage.kv.put("session", { id: "ses_a", system: "first" });
      const store = new SessionStore({
        sql: storage.sql,
        kv: counted.kv,
        transactionSync: (fn: () => unknown) => storage.transactionSync(fn),
      } as unknown as DurableObjectStorage);
      expect(store.session()).toMatchObject({ system: "first" });
      await Promise.resolve();
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(store.session()).toMatchObject({ system: "first" });
      expect(counted.reads.filter((key) => key === "session")).toHaveLength(1);
      // The outbox likewise: every unit asks whether anything is owed.
      expect(store.outboxSize()).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(store.outboxSize()).toBe(0);
      expect(counted.reads.filter((key) => key === "outbox")).toHaveLength(1);

      store.putSession({ ...store.session()!, system: "second" });
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(store.session()).toMatchObject({ system: "second" });
      expect(storage.kv.get("session")).toMatchObject({ system: "second" });

      expect(() =>
        store.transaction(() => {
          store.putSession({ ...store.session()!, system: "rolled back" });
          throw new Error("a write failed");
        }),
      ).toThrow("a write failed");
      expect(store.session()).toMatchObject({ system: "second" });

      // Storage changed behind the store (an erase, a migration): after `forget`, read again.
      storage.kv.put("session", { id: "ses_a", system: "third" });
      store.forget();
      expect(store.session()).toMatchObject({ system: "third" });
      expect(counted.reads.filter((key) => key === "session").length).toBeGreaterThan(1);
    });
  });
});
