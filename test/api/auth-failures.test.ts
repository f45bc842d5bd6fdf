/**
 * Failed authentications per client address, from the header the deployment trusts: after
 * `AUTH_FAILURES_PER_MINUTE` (60 here, the default) unverified requests get 429, valid
 * credentials keep working, and bogus API keys stop reaching the tenant's index object. Without
 * a trusted address (a local runtime, as this one is) failures count by the tenant a key names,
 * so one forger cannot lock every tenant out.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app";
import { AuthGuard } from "../../src/api/auth-guard";
import { PROBLEM_TYPE_BASE } from "../../src/api/errors";
import type { Env } from "../../src/env";
import { BASE_URL, callJson, readProblem } from "../support/api";
import { issuedKey, legacyKey } from "../support/api-keys";
import { bearer, freshTenant } from "../support/tokens";

const LIMIT = 60;

/** The real environment, counting how often a tenant index object is addressed. */
function countingEnv(): { env: Env; indexCalls: () => number } {
  let calls = 0;
  const namespace = env.TENANT_INDEX;
  const counted = new Proxy(namespace, {
    get(target, property) {
      if (property === "idFromName") {
        return (name: string) => {
          calls += 1;
          return target.idFromName(name);
        };
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { env: { ...env, TENANT_INDEX: counted }, indexCalls: () => calls };
}

function randomAddress(): string {
  const [a = 0, b = 0, c = 0] = crypto.getRandomValues(new Uint8Array(3));
  return `10.${a}.${b}.${c}`;
}

async function realKey(tenantId: string): Promise<string> {
  const res = await callJson(
    "/v1/api-keys",
    "POST",
    { name: "backend", scopes: ["sessions:read"] },
    await bearer({ tenantId, scopes: ["tenant:admin"] }),
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

/** A key for `tenantId` as the platform issues it, but never stored. */
async function bogusKey(tenantId: string): Promise<string> {
  return (await issuedKey(tenantId)).plaintext;
}

/** The deployed default, named: this runtime is a local one, where no header is trusted unless set. */
const TRUSTED = { TRUSTED_CLIENT_IP_HEADER: "CF-Connecting-IP" };

/** A gateway with a fresh guard; `vars` over the test bindings (none: the local runtime's default). */
function setup(vars: Partial<Env> = TRUSTED) {
  const app = createApp({ authGuard: new AuthGuard() });
  const counting = countingEnv();
  const bindings = { ...counting.env, ...vars };
  const send = (path: string, credential: string, address?: string, init: RequestInit = {}) =>
    app.request(
      `${BASE_URL}${path}`,
      {
        ...init,
        headers: {
          ...(init.headers as Record<string, string> | undefined),
          Authorization: credential.startsWith("Bearer ") ? credential : `Bearer ${credential}`,
          ...(address ? { "CF-Connecting-IP": address } : {}),
        },
      },
      bindings,
    );
  const get = (credential: string, address?: string) => send("/v1/tenant", credential, address);
  const createKey = (credential: string, address?: string) =>
    send("/v1/api-keys", credential, address, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "backend", scopes: ["tenant:admin"] }),
    });
  return { get, createKey, indexCalls: counting.indexCalls };
}

describe("failed authentications per trusted client address", () => {
  it(`answers 429 with Retry-After once an address has failed ${LIMIT} times in a minute`, async () => {
    const { get } = setup();
    const tenantId = freshTenant();
    const address = randomAddress();
    for (let i = 0; i < LIMIT; i++) {
      const res = await get(await bogusKey(tenantId), address);
      expect(res.status, `failure ${i + 1}`).toBe(401);
    }
    const limited = await get(await bogusKey(tenantId), address);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await readProblem(limited)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}rate_limited`, status: 429 });
    // Any unverified credential, not only API keys.
    expect((await get("Bearer not-a-token", address)).status).toBe(429);
    // Another address is judged on its own.
    expect((await get(await bogusKey(tenantId), randomAddress())).status).toBe(401);
  });

  it("keeps valid credentials from a blocked address working, and spares the tenant index bogus keys", async () => {
    const { get, indexCalls } = setup();
    const tenantId = freshTenant();
    const address = randomAddress();
    const key = await realKey(tenantId);
    expect((await get(key, address)).status).toBe(200);
    for (let i = 0; i <= LIMIT; i++) await get(await bogusKey(tenantId), address);

    const before = indexCalls();
    for (let i = 0; i < 20; i++) expect((await get(await bogusKey(tenantId), address)).status).toBe(429);
    expect(indexCalls() - before).toBe(0);

    expect((await get((await bearer({ tenantId, scopes: ["sessions:read"] })).Authorization, address)).status).toBe(200);
    expect((await get(key, address)).status).toBe(200);
    // A wrong tag for the verified key id is still refused.
    expect((await get(`${key.slice(0, -4)}AAAA`, address)).status).toBe(429);
  });

  it("holds a key first seen from a blocked address until the block lifts, but not from elsewhere", async () => {
    const { get } = setup();
    const tenantId = freshTenant();
    const address = randomAddress();
    const key = await realKey(tenantId);
    for (let i = 0; i <= LIMIT; i++) await get(await bogusKey(tenantId), address);
    expect((await get(key, address)).status).toBe(429);
    expect((await get(key, randomAddress())).status).toBe(200);
  });

  it("counts requests that carry no client address by the tenant their key names", async () => {
    const { get } = setup();
    const tenantId = freshTenant();
    for (let i = 0; i < LIMIT; i++) expect((await get(await bogusKey(tenantId))).status).toBe(401);
    expect((await get(await bogusKey(tenantId))).status).toBe(429);
    expect((await get(await bogusKey(freshTenant()))).status).toBe(401);
  });

  it("answers a repeated unknown key id without asking the tenant index again", async () => {
    const { get, indexCalls } = setup();
    const bogus = await bogusKey(freshTenant());
    expect((await get(bogus)).status).toBe(401);
    const afterFirst = indexCalls();
    expect(afterFirst).toBe(1);
    expect((await get(bogus)).status).toBe(401);
    expect((await get(`${bogus.slice(0, -4)}BBBB`)).status).toBe(401);
    expect(indexCalls()).toBe(afterFirst);
  });
});

describe("failed authentications under a local runtime, where no address is trusted", () => {
  /** `wrangler dev` hands every client's request over with its own loopback address. */
  const LOOPBACK = "127.0.0.1";

  it(`lets another tenant create keys and use them after ${LIMIT} forged keys from the same address`, async () => {
    const { get, createKey } = setup({});
    const victim = freshTenant();
    for (let i = 0; i <= LIMIT; i++) await get(await bogusKey(victim), LOOPBACK);
    expect((await get(await bogusKey(victim), LOOPBACK)).status).toBe(429);

    const other = freshTenant();
    const adminJwt = (await bearer({ tenantId: other, scopes: ["tenant:admin"] })).Authorization;
    const created = await createKey(adminJwt, LOOPBACK);
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    // A key this gateway never verified, first seen after the forger's failures: it stands.
    expect((await get(key, LOOPBACK)).status).toBe(200);
    const second = await createKey(key, LOOPBACK);
    expect(second.status).toBe(201);
    expect((await get(((await second.json()) as { key: string }).key, LOOPBACK)).status).toBe(200);
  });

  it("counts forged keys of the untagged legacy format together, whatever tenant each names", async () => {
    // The isolate's count alone: the Rate Limiting binding's window is shared by every test file of the run.
    const { get } = setup({ AUTH_FAILURE_LIMITER: undefined });
    const forge = async () => (await legacyKey(freshTenant())).plaintext;
    for (let i = 0; i < LIMIT; i++) expect((await get(await forge(), LOOPBACK)).status).toBe(401);
    expect((await get(await forge(), LOOPBACK)).status).toBe(429);
  });

  it("counts a forger's keys by their tenant whatever address each request claims", async () => {
    const { get } = setup({});
    const victim = freshTenant();
    for (let i = 0; i < LIMIT; i++) expect((await get(await bogusKey(victim), randomAddress())).status).toBe(401);
    expect((await get(await bogusKey(victim), randomAddress())).status).toBe(429);
  });
});
