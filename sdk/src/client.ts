/**
 * The typed client: openapi-fetch over the generated `paths`, with the bearer credential
 * (a JWT or an API key `ak_…`, both sent as `Authorization: Bearer`) added to every request.
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./generated/openapi.ts";

export type PlatformClient = Client<paths>;

/** A fixed credential, or a function called per request (to refresh a short-lived token). */
export type Credential = string | (() => string | Promise<string>);

export interface PlatformClientOptions {
  /** The platform's origin, e.g. `https://agents.example.com` or `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** A JWT or an API key. */
  credential: Credential;
  /** Another fetch (a test double, a proxy-aware one); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ""), ...(options.fetch ? { fetch: options.fetch } : {}) });
  client.use(bearerAuth(options.credential));
  return client;
}

/** The middleware that authenticates each request; usable on a client made with `createClient`. */
export function bearerAuth(credential: Credential): Middleware {
  return {
    async onRequest({ request }) {
      const value = typeof credential === "function" ? await credential() : credential;
      request.headers.set("Authorization", `Bearer ${value}`);
      return request;
    },
  };
}
