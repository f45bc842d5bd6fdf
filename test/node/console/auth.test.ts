/**
 * The console's credential: what is kept where, the exchange of an API key, its renewal before
 * expiry, and what a 401 or an expired token leads to. The platform is a fake `fetch` here; the
 * browser tests (test/e2e/console.test.ts) run the same code against the real one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Api } from "../../../console/src/api";
import { Auth, SignInNeeded, TOKEN_STORAGE_KEY } from "../../../console/src/auth/auth";
import { fakeJwt } from "./fake-jwt";

const BASE = "https://agents.example.com";
const KEY = "ak_YWNtZQ.key_0123456789abcdef01234567.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ";
const MINUTE = 60_000;

class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(status === 304 ? null : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/** A token the fake platform issues: expires `ttlMs` after `now`. */
function issued(now: number, ttlMs = 15 * MINUTE, n = 0): string {
  return fakeJwt({ sub: "key:key_1", scope: "tenant:admin", exp: Math.floor((now + ttlMs) / 1000), n });
}

let now = 1_800_000_000_000;
let storage: MemoryStorage;
let fetchSpy: ReturnType<typeof vi.spyOn>;
let exchanges = 0;
/** What the fake platform answers to anything but the exchange. */
let answer: (request: Request) => Response;

beforeEach(() => {
  storage = new MemoryStorage();
  exchanges = 0;
  answer = () => json(200, { ok: true });
  fetchSpy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    if (new URL(request.url).pathname === "/v1/auth/token") {
      if (request.headers.get("Authorization") !== `Bearer ${KEY}`)
        return json(401, { code: "unauthorized", status: 401, detail: "Bad credentials." });
      exchanges++;
      return json(200, { access_token: issued(now, 15 * MINUTE, exchanges), token_type: "Bearer", expires_in: 900 });
    }
    return answer(request);
  });
});
afterEach(() => {
  fetchSpy.mockRestore();
});

const auth = () => new Auth(BASE, storage, () => now);

describe("signing in", () => {
  it("exchanges an API key, keeps only the token in the tab's storage, and never the key", async () => {
    const a = auth();
    await a.signIn(`  ${KEY} `);
    expect(exchanges).toBe(1);
    expect(a.state).toMatchObject({ signedIn: true, renewable: true, claims: { subject: "key:key_1" } });
    expect([...storage.items.keys()]).toEqual([TOKEN_STORAGE_KEY]);
    expect([...storage.items.values()].join()).not.toContain("ak_");
    expect(await a.token()).toBe(storage.items.get(TOKEN_STORAGE_KEY));
  });

  it("uses a pasted token as is, and refuses an expired or unreadable one", async () => {
    const a = auth();
    const token = issued(now, 5 * MINUTE);
    await a.signIn(token);
    expect(a.state).toMatchObject({ signedIn: true, renewable: false });
    expect(await a.token()).toBe(token);
    await expect(auth().signIn(issued(now, -MINUTE))).rejects.toThrow("expired");
    await expect(auth().signIn("hello")).rejects.toThrow("neither an API key");
    expect(exchanges).toBe(0);
  });

  it("says so when the platform refuses the key, and stays signed out", async () => {
    const a = auth();
    await expect(a.signIn("ak_YWNtZQ.key_0123456789abcdef01234567.wrong")).rejects.toThrow("Bad credentials.");
    expect(a.state.signedIn).toBe(false);
    expect(storage.items.size).toBe(0);
  });

  it("keeps a reload of the tab signed in until the stored token expires", () => {
    storage.setItem(TOKEN_STORAGE_KEY, issued(now, MINUTE));
    expect(auth().state).toMatchObject({ signedIn: true, renewable: false });
    now += 2 * MINUTE;
    const later = auth();
    expect(later.state).toMatchObject({ signedIn: false, reason: "expired" });
    expect(storage.items.size).toBe(0);
  });
});

describe("expiry", () => {
  it("exchanges the key again shortly before the token expires, once for concurrent callers", async () => {
    const a = auth();
    await a.signIn(KEY);
    const first = await a.token();
    now += 14.5 * MINUTE;
    const [one, two] = await Promise.all([a.token(), a.token()]);
    expect(exchanges).toBe(2);
    expect(one).toBe(two);
    expect(one).not.toBe(first);
    expect(storage.items.get(TOKEN_STORAGE_KEY)).toBe(one);
  });

  it("signs out a pasted token at its expiry, telling the listeners why", async () => {
    const a = auth();
    await a.signIn(issued(now, MINUTE));
    const seen: string[] = [];
    a.subscribe((state) => seen.push(`${state.signedIn}:${state.reason}`));
    now += 2 * MINUTE;
    await expect(a.token()).rejects.toBeInstanceOf(SignInNeeded);
    expect(seen).toEqual(["false:expired"]);
    expect(storage.items.size).toBe(0);
  });
});

describe("the API client", () => {
  it("renews an exchanged token once when the platform answers 401, and retries", async () => {
    const a = auth();
    await a.signIn(KEY);
    const seen: string[] = [];
    answer = (request) => {
      seen.push(request.headers.get("Authorization") ?? "");
      return seen.length === 1 ? json(401, { code: "unauthorized", status: 401, detail: "no" }) : json(200, { tenant_id: "acme" });
    };
    const tenant = await new Api(a, BASE).call((client) => client.GET("/v1/tenant"));
    expect(tenant).toMatchObject({ tenant_id: "acme" });
    expect(exchanges).toBe(2);
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
  });

  it("signs out as refused when a pasted token gets 401", async () => {
    const a = auth();
    await a.signIn(issued(now));
    answer = () => json(401, { code: "unauthorized", status: 401, detail: "no" });
    await expect(new Api(a, BASE).call((client) => client.GET("/v1/tenant"))).rejects.toBeInstanceOf(SignInNeeded);
    expect(a.state).toMatchObject({ signedIn: false, reason: "refused" });
  });

  it("reads a 304 as unchanged and a 200 as new data with its tag, sending the tag it holds", async () => {
    const a = auth();
    await a.signIn(issued(now));
    const api = new Api(a, BASE);
    const sent: (string | null)[] = [];
    answer = (request) => {
      sent.push(request.headers.get("If-None-Match"));
      return request.headers.get("If-None-Match") === 'W/"v1"'
        ? json(304, null, { ETag: 'W/"v1"' })
        : json(200, { data: [], next_cursor: null }, { ETag: 'W/"v1"' });
    };
    const read = (etag: string | null) =>
      api.conditional(etag, (client, ifNoneMatch) =>
        client.GET("/v1/sessions", { params: { header: ifNoneMatch ? { "if-none-match": ifNoneMatch } : {} }, cache: "no-store" }),
      );
    expect(await read(null)).toEqual({ changed: true, data: { data: [], next_cursor: null }, etag: 'W/"v1"' });
    expect(await read('W/"v1"')).toEqual({ changed: false });
    expect(sent).toEqual([null, 'W/"v1"']);
  });
});
