/**
 * One test file's world: a mock server process, a platform process on its own storage, and
 * API clients for principals of the platform's issuer. Limits are generous by default, since
 * the tests poll often and the scenarios, not the limits, are what is under test.
 */
import type { PartialLimits } from "../../../src/limits";
import { ApiClient } from "./api-client";
import { MockServer } from "./mock-process";
import { Platform } from "./platform";
import { type Identity, type Scope, tokenMinter } from "./tokens";

const GENEROUS_LIMITS: PartialLimits = {
  requests_per_minute: 1_000_000,
  max_concurrent_runs: 1_000,
};

export interface StackOptions {
  /** Merged over the generous defaults into `DEFAULT_LIMITS`. */
  limits?: PartialLimits;
  /** More Worker variables. */
  vars?: Record<string, string>;
}

export interface Stack {
  mock: MockServer;
  platform: Platform;
  /** A client for `subject` of `tenantId`; by default with `sessions:read sessions:write`. */
  client(tenantId: string, subject?: string, scopes?: Scope[]): Promise<ApiClient>;
  /** Everything the processes printed, for failure messages. */
  logs(): string;
  dispose(): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const mock = await MockServer.start();
  let platform: Platform | null = null;
  try {
    platform = await Platform.create({
      modelUrl: mock.url,
      vars: { DEFAULT_LIMITS: JSON.stringify({ ...GENEROUS_LIMITS, ...options.limits }), ...options.vars },
    });
    await platform.start();
  } catch (error) {
    await platform?.dispose();
    await mock.stop();
    throw error;
  }
  const running = platform;
  const mint = await tokenMinter(running.signingKey);
  return {
    mock,
    platform: running,
    async client(tenantId, subject = "e2e-user", scopes = ["sessions:read", "sessions:write"]) {
      const identity: Identity = { tenantId, subject, scopes };
      return new ApiClient(() => running.url, await mint(identity));
    },
    logs: () => `--- platform ---\n${running.logs()}\n--- mock ---\n${mock.output()}`,
    async dispose() {
      await running.dispose();
      await mock.stop();
    },
  };
}

/** A name unique to this run, usable as a tenant id, model key or webhook key. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}
