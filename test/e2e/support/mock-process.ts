/**
 * The mock model and webhook server as its own process, so what it recorded survives every
 * restart of the platform, and an HTTP client for its control API (`/_mock/`).
 */
import { join } from "node:path";
import type { HookStep, ModelStep, RecordedRequest, ReleaseResult, RequestsResult, ScriptResult } from "../../support/mock-protocol";
import { childEnv, LOOPBACK, nodeBinary, PROJECT_ROOT } from "./environment";
import { type GroupChild, spawnGroup } from "./process-group";

export type { HookStep, ModelStep, RecordedRequest } from "../../support/mock-protocol";

const STARTUP_TIMEOUT_MS = 15_000;
const URL_LINE = /^http:\/\/127\.0\.0\.1:\d+$/m;

export class MockServer {
  private constructor(
    readonly url: string,
    private readonly child: GroupChild,
  ) {}

  static async start(): Promise<MockServer> {
    const script = join(PROJECT_ROOT, "test", "support", "node", "mock-server.ts");
    const child = spawnGroup(nodeBinary(), ["--no-warnings", script, "--port", "0"], {
      cwd: PROJECT_ROOT,
      env: childEnv({}),
    });
    const output = await child.waitForOutput((text) => URL_LINE.test(text), STARTUP_TIMEOUT_MS).catch(async (error: unknown) => {
      await child.stop("SIGKILL");
      throw error;
    });
    const url = URL_LINE.exec(output)?.[0];
    if (!url || !url.includes(LOOPBACK)) throw new Error(`mock server printed no loopback URL:\n${output}`);
    return new MockServer(url, child);
  }

  async stop(): Promise<void> {
    await this.child.stop("SIGKILL");
  }

  output(): string {
    return this.child.output();
  }

  model(key: string): MockQueue<ModelStep> {
    return queue<ModelStep>(this.url, "model", key);
  }

  hook(key: string): MockHook {
    const base = this.url;
    return {
      ...queue<HookStep>(base, "hook", key),
      url: `${base}/hook/${encodeURIComponent(key)}`,
      async release() {
        return (await control<ReleaseResult>(base, "POST", `hook/${encodeURIComponent(key)}/release`)).released;
      },
    };
  }
}

export interface MockQueue<S> {
  readonly key: string;
  /** Appends steps; each request under the key takes the next one, oldest first. */
  script(...steps: S[]): Promise<ScriptResult>;
  /** Requests recorded under the key, oldest first. */
  requests(): Promise<RecordedRequest[]>;
}

export interface MockHook extends MockQueue<HookStep> {
  /** The webhook URL whose calls are recorded and answered under the key. */
  readonly url: string;
  /** Answers every call held under the key; returns how many. */
  release(): Promise<number>;
}

async function control<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}/_mock/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`mock control ${method} ${path} failed: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

function queue<S>(base: string, kind: "model" | "hook", key: string): MockQueue<S> {
  const path = `${kind}/${encodeURIComponent(key)}`;
  return {
    key,
    script: (...steps) => control<ScriptResult>(base, "POST", path, { steps }),
    requests: async () => (await control<RequestsResult>(base, "GET", `${path}/requests`)).requests,
  };
}
