/**
 * The one way to a tenant's object (src/objects.ts): the namespace narrowed to the tenant's
 * jurisdiction, learned from the registry once and then remembered. With namespaces of our own
 * that record where each stub was made, since a local workerd implements no jurisdiction
 * (test/tenants/residency.test.ts shows what it does instead).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import * as objects from "../../src/objects";

type Placed = { binding: string; jurisdiction: string | null; name: string };
type Where = { where(): Promise<Placed> };

/** A namespace whose stubs answer `where()` with the jurisdiction and name they were made for. */
function fakeNamespace(binding: string, jurisdiction: string | null = null): unknown {
  return {
    jurisdiction: (j: string) => {
      if (jurisdiction !== null) throw new Error("a namespace narrowed twice");
      return fakeNamespace(binding, j);
    },
    idFromName: (name: string) => ({ name }),
    get: (id: { name: string }) => ({ where: async (): Promise<Placed> => ({ binding, jurisdiction, name: id.name }) }),
  };
}

/** Every per-tenant binding and the name its object has for tenant `t`. */
const OBJECTS: [objects.TenantBinding, (t: string) => string][] = [
  ["SESSION", (t) => objects.sessionObjectName(t, "ses_1")],
  ["TENANT_INDEX", objects.tenantIndexName],
  ["SCHEDULER", objects.schedulerName],
  ["AGENT_STORE", objects.agentStoreName],
  ["MEMORY_STORE", objects.memoryStoreName],
  ["VAULT", objects.vaultName],
];

/** Namespaces of our own; the registry answers from `placements` and counts its questions. */
function fakeEnv(placements: Record<string, objects.Placement>, asked: string[], failing = { now: false }) {
  const fake: Record<string, unknown> = Object.fromEntries(OBJECTS.map(([binding]) => [binding, fakeNamespace(binding)]));
  fake.TENANT_REGISTRY = {
    idFromName: (name: string) => ({ name }),
    jurisdiction: () => {
      throw new Error("the registry is the platform's: never narrowed");
    },
    get: () => ({
      placement: async (tenantId: string) => {
        if (failing.now) throw new Error("registry down");
        asked.push(tenantId);
        return placements[tenantId] ?? { jurisdiction: null, settled: false };
      },
    }),
  };
  return fake as unknown as Cloudflare.Env;
}

const stubOf = (fake: Cloudflare.Env, binding: objects.TenantBinding, t: string, name: string, placements: objects.Placements) =>
  objects.tenantObjectStub(fake, binding, t, name, placements) as unknown as Where;

describe("a tenant's stubs", () => {
  it("reach every object of a tenant pinned to eu in eu, asking the registry once", async () => {
    const asked: string[] = [];
    const fake = fakeEnv({ "t-eu": { jurisdiction: "eu", settled: true } }, asked);
    const placements = new objects.Placements();
    for (const round of [1, 2]) {
      for (const [binding, name] of OBJECTS) {
        const placed = await stubOf(fake, binding, "t-eu", name("t-eu"), placements).where();
        expect(placed, `round ${round}`).toEqual({ binding, jurisdiction: "eu", name: name("t-eu") });
      }
    }
    // Remembered after the first answer: every later stub is made placed, with no question.
    expect(asked).toEqual(["t-eu"]);
    expect(placements.known(fake, "t-eu")).toBe("eu");
  });

  it("reach a tenant with no jurisdiction in the plain namespace, and one in fedramp in fedramp", async () => {
    const fake = fakeEnv({ "t-fed": { jurisdiction: "fedramp", settled: true } }, []);
    const placements = new objects.Placements();
    expect(await stubOf(fake, "VAULT", "t-any", "v", placements).where()).toEqual({ binding: "VAULT", jurisdiction: null, name: "v" });
    expect(await stubOf(fake, "VAULT", "t-fed", "v", placements).where()).toEqual({ binding: "VAULT", jurisdiction: "fedramp", name: "v" });
  });

  it("keep a settled answer for minutes, and never one that may still change", async () => {
    const asked: string[] = [];
    const fake = fakeEnv({}, asked);
    const placements = new objects.Placements();
    const now = Date.now();
    placements.note("t-settled", { jurisdiction: "eu", settled: true }, now - objects.SETTLED_PLACEMENT_TTL_MS + 60_000);
    placements.note("t-new", { jurisdiction: "eu", settled: false }, now);
    expect(await stubOf(fake, "TENANT_INDEX", "t-settled", "i", placements).where()).toMatchObject({ jurisdiction: "eu" });
    // The unsettled answer was not kept: the registry is asked, and now says none.
    expect(await stubOf(fake, "TENANT_INDEX", "t-new", "i", placements).where()).toMatchObject({ jurisdiction: null });
    expect(asked).toEqual(["t-new"]);
  });

  it("reach a new tenant's objects in the jurisdiction a platform admin set from another isolate, from the next stub on", async () => {
    // Remembering "none" for a tenant not yet listed would let this isolate bind its first objects outside the jurisdiction just set.
    const registry: Record<string, objects.Placement> = {};
    const fake = fakeEnv(registry, []);
    const placements = new objects.Placements();
    expect(await stubOf(fake, "TENANT_INDEX", "t-first", "i", placements).where()).toMatchObject({ jurisdiction: null });
    registry["t-first"] = { jurisdiction: "eu", settled: false };
    expect(await stubOf(fake, "TENANT_INDEX", "t-first", "i", placements).where()).toMatchObject({ jurisdiction: "eu" });
  });

  it("ask once for concurrent first calls, and again after a question that failed", async () => {
    const asked: string[] = [];
    const failing = { now: true };
    const fake = fakeEnv({ t: { jurisdiction: "eu", settled: true } }, asked, failing);
    const placements = new objects.Placements();
    const session = stubOf(fake, "SESSION", "t", "s", placements);
    await expect(session.where()).rejects.toThrow("registry down");
    failing.now = false;
    const all = await Promise.all([session.where(), stubOf(fake, "TENANT_INDEX", "t", "i", placements).where()]);
    expect(all.map((placed) => placed.jurisdiction)).toEqual(["eu", "eu"]);
    expect(asked).toEqual(["t"]);
  });

  it("are awaitable values, not promises: awaiting a stub waits for no call", async () => {
    const fake = fakeEnv({}, []);
    const stub = stubOf(fake, "VAULT", "t-await", "v", new objects.Placements());
    expect(await Promise.resolve(stub)).toBe(stub);
  });

  it("refuse to be read as a stub's id or name before the placement is known, instead of answering a function", () => {
    const stub = objects.tenantObjectStub(fakeEnv({}, []), "SESSION", "t-props", "s", new objects.Placements()) as unknown as Record<
      string,
      unknown
    >;
    expect(() => stub.id).toThrow(/method calls only/);
    expect(() => stub.name).toThrow(/method calls only/);
  });

  it("each reach their own binding and name, and the registry stays in the plain namespace", () => {
    // On this local runtime every stub is the plain namespace's (see residency.test.ts).
    const t = `place-${crypto.randomUUID()}`;
    const made: [objects.TenantBinding, DurableObjectStub<undefined>, string][] = [
      ["SESSION", objects.sessionStub(env, t, "ses_1") as never, objects.sessionObjectName(t, "ses_1")],
      ["TENANT_INDEX", objects.tenantIndexStub(env, t) as never, objects.tenantIndexName(t)],
      ["SCHEDULER", objects.schedulerStub(env, t) as never, objects.schedulerName(t)],
      ["AGENT_STORE", objects.agentStoreStub(env, t) as never, objects.agentStoreName(t)],
      ["MEMORY_STORE", objects.memoryStoreStub(env, t) as never, objects.memoryStoreName(t)],
      ["VAULT", objects.vaultStub(env, t) as never, objects.vaultName(t)],
    ];
    for (const [binding, stub, name] of made) {
      const namespace = env[binding] as unknown as DurableObjectNamespace;
      expect(stub.id.equals(namespace.idFromName(name)), binding).toBe(true);
    }
    expect(objects.tenantRegistryStub(env).id.equals(env.TENANT_REGISTRY.idFromName(objects.TENANT_REGISTRY_NAME))).toBe(true);
  });
});
