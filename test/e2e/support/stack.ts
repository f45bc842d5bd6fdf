/**
 * One test file's world: a mock server process, a platform process on its own storage, and
 * API clients for principals of the platform's issuer. Limits are generous by default, since
 * the tests poll often and the scenarios, not the limits, are what is under test.
 *
 * The platform runs the Worker the suite's global setup bundled once (`WORKER_BUNDLE_ENV`), so a
 * start boots workerd without building and bundling again; without that setup (a single file run
 * some other way) wrangler bundles as usual.
 */
import { readFileSync } from "node:fs";
import type { PartialLimits } from "../../../src/limits";
import { ApiClient } from "./api-client";
import { MockServer } from "./mock-process";
import { Platform } from "./platform";
import { type Identity, type Scope, tokenMinter } from "./tokens";

const GENEROUS_LIMITS: PartialLimits = {
  requests_per_minute: 1_000_000,
  end_user_requests_per_minute: 1_000_000,
  max_concurrent_runs: 1_000,
};

/** Where the global setup tells the test files the bundled Worker is. */
export const WORKER_BUNDLE_ENV = "AGENT_PLATFORM_E2E_BUNDLE";
/** The tail of a shared process's output that failure messages show. */
const SHARED_LOG_CHARS = 64 * 1024;

export interface StackOptions {
  /** Merged over the generous defaults into `DEFAULT_LIMITS`. */
  limits?: PartialLimits;
  /** More Worker variables. */
  vars?: Record<string, string>;
  /** Also write the processes' output to these files (the shared stack's readers are elsewhere). */
  outputFiles?: { platform: string; mock: string };
}

/** What a test file may do with a stack it shares with other files: no restarts, no settings. */
export interface SharedStack {
  mock: Pick<MockServer, "url" | "control" | "model" | "hook">;
  platform: Pick<Platform, "url" | "signingKey">;
  client(tenantId: string, subject?: string, scopes?: Scope[]): Promise<ApiClient>;
  logs(): string;
  /** Only forgets the stack: the global setup stops it after the last file. */
  dispose(): Promise<void>;
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
  const mock = await MockServer.start(options.outputFiles?.mock);
  let platform: Platform | null = null;
  try {
    platform = await Platform.create({
      modelUrl: mock.url,
      vars: { DEFAULT_LIMITS: JSON.stringify({ ...GENEROUS_LIMITS, ...options.limits }), ...options.vars },
      bundle: process.env[WORKER_BUNDLE_ENV] || undefined,
      outputFile: options.outputFiles?.platform,
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

/** What the global setup tells the test files of the stack they share (`sharedStack`). */
export interface SharedStackInfo {
  platformUrl: string;
  signingKey: string;
  mockUrl: string;
  outputFiles: { platform: string; mock: string };
}

/**
 * The stack the global setup started for the files that need no restart and no settings of
 * their own: one platform and one mock for all of them. Files keep apart by unique tenants and
 * model keys, as they do anyway; they run one after another, never at once.
 */
export async function sharedStack(): Promise<SharedStack> {
  const { inject } = await import("vitest");
  const info = inject("sharedStack");
  if (!info) throw new Error("no shared stack: run the end-to-end files through the e2e project (vitest.config.ts)");
  const mint = await tokenMinter(info.signingKey);
  const mock = MockServer.connect(info.mockUrl);
  return {
    mock,
    platform: { url: info.platformUrl, signingKey: info.signingKey },
    async client(tenantId, subject = "e2e-user", scopes = ["sessions:read", "sessions:write"]) {
      return new ApiClient(() => info.platformUrl, await mint({ tenantId, subject, scopes }));
    },
    logs: () =>
      `--- platform (shared) ---\n${readTail(info.outputFiles.platform)}\n--- mock (shared) ---\n${readTail(info.outputFiles.mock)}`,
    dispose: async () => undefined,
  };
}

function readTail(path: string): string {
  // Synchronous, since failure messages are built synchronously.
  try {
    const text = readFileSync(path, "utf8");
    return text.slice(-SHARED_LOG_CHARS);
  } catch (error) {
    return `(no output: ${String(error)})`;
  }
}

/** A name unique to this run, usable as a tenant id, model key or webhook key. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}
