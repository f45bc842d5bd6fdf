/**
 * The console's API client: the generated SDK's client (openapi-fetch over the spec's paths),
 * authenticated by the tab's credential. One wrapper decides what a 401 means (renew an
 * exchanged token once, else sign in again), and one reads conditional answers (304).
 */
import { createPlatformClient, expectData, PlatformError, type PlatformClient, type Result } from "@agent-platform/sdk";
import { type Auth, SignInNeeded } from "./auth/auth";

/** An answer read with `If-None-Match`: unchanged (304), or new data with its tag. */
export type Conditional<T> = { changed: false } | { changed: true; data: T; etag: string | null };

export class Api {
  readonly client: PlatformClient;

  constructor(
    private readonly auth: Auth,
    baseUrl: string,
  ) {
    this.client = createPlatformClient({ baseUrl, credential: () => auth.token() });
  }

  /** The data of a call made by `request`; a 401 renews an exchanged token and tries once more. */
  async call<T>(request: (client: PlatformClient) => Promise<Result<T>>): Promise<T> {
    return expectData(await this.#send(request));
  }

  /** A conditional read: `request` gets the tag to send as `If-None-Match`. */
  async conditional<T>(
    etag: string | null,
    request: (client: PlatformClient, etag: string | undefined) => Promise<Result<T>>,
  ): Promise<Conditional<T>> {
    const result = await this.#send((client) => request(client, etag ?? undefined));
    if (result.response.status === 304) return { changed: false };
    const data = await expectData(result);
    return { changed: true, data, etag: result.response.headers.get("ETag") };
  }

  async #send<T>(request: (client: PlatformClient) => Promise<Result<T>>): Promise<Result<T>> {
    let result = await request(this.client);
    if (result.response.status === 401 && this.auth.state.renewable) {
      await this.auth.renew();
      result = await request(this.client);
    }
    if (result.response.status === 401) {
      this.auth.expire("refused");
      throw new SignInNeeded("refused");
    }
    return result;
  }
}

/** Conditional requests bypass the browser's cache, so a 304 reaches the console as a 304. */
export const NO_STORE = { cache: "no-store" } as const;

/** One line a person can act on, with the request id to quote when asking for help. */
export function describeError(error: unknown): string {
  if (error instanceof PlatformError) {
    // A field's own message says what to change; the generic detail only says that something is wrong.
    const fields = error.problem?.errors?.slice(0, 3).map((field) => `${field.path}: ${field.message}`);
    const detail = fields?.length ? fields.join("; ") : (error.problem?.detail ?? `The platform answered ${error.status}.`);
    return error.requestId ? `${detail} (request ${error.requestId})` : detail;
  }
  if (error instanceof SignInNeeded) return "Sign in again.";
  if (error instanceof TypeError) return "The platform cannot be reached. Check the connection and try again.";
  return error instanceof Error ? error.message : String(error);
}

/** Whether an error is the platform's 404: the thing is missing, or not the caller's. */
export function isNotFound(error: unknown): boolean {
  return error instanceof PlatformError && error.status === 404;
}
