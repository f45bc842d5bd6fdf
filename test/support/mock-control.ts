/**
 * The HTTP client of the mock server's control API (`/_mock/`), for any base URL. It uses
 * nothing but `fetch`, so tests in workerd and the Node end-to-end suite share it.
 */
import type { HookStep, ModelStep, RecordedRequest, ReleaseResult, RequestsResult, ScriptResult } from "./mock-protocol";

export type { HookStep, ModelStep, RecordedRequest } from "./mock-protocol";

/** How long `waitForRequests` polls before failing the test, and how often. */
const WAIT_TIMEOUT_MS = 15_000;
const POLL_INTERVAL_MS = 10;

export interface MockQueue<S> {
  readonly key: string;
  /** Appends steps; each request under the key takes the next one, oldest first. */
  script(...steps: S[]): Promise<ScriptResult>;
  /** Requests recorded under the key, oldest first. */
  requests(): Promise<RecordedRequest[]>;
  /** Polls until at least `count` requests are recorded; throws after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Forgets the key's steps and records in both queues, releasing anything held. */
  forget(): Promise<void>;
}

export interface MockHook extends MockQueue<HookStep> {
  /** The webhook URL whose calls are recorded and answered under the key. */
  readonly url: string;
  /** Answers every webhook call currently held under the key; returns how many. */
  release(): Promise<number>;
}

export interface MockControl {
  readonly url: string;
  /** The model queue for `key`; the key is the `model` field of Messages API requests. */
  model(key: string): MockQueue<ModelStep>;
  /** The webhook queue for `key`; calls to its `url` are recorded here. */
  hook(key: string): MockHook;
}

export function mockControl(baseUrl: string): MockControl {
  async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${baseUrl}/_mock/${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`mock control ${method} ${path} failed: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  function queue<S>(kind: "model" | "hook", key: string): MockQueue<S> {
    const base = `${kind}/${encodeURIComponent(key)}`;
    const requests = async () => (await control<RequestsResult>("GET", `${base}/requests`)).requests;
    return {
      key,
      script: (...steps) => control<ScriptResult>("POST", base, { steps }),
      requests,
      async waitForRequests(count, timeoutMs = WAIT_TIMEOUT_MS) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const seen = await requests();
          if (seen.length >= count) return seen;
          if (Date.now() > deadline) throw new Error(`mock ${kind} "${key}": ${seen.length} of ${count} requests after ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
        }
      },
      async forget() {
        await control("DELETE", encodeURIComponent(key));
      },
    };
  }

  return {
    url: baseUrl,
    model: (key) => queue<ModelStep>("model", key),
    hook(key) {
      return {
        ...queue<HookStep>("hook", key),
        url: `${baseUrl}/hook/${encodeURIComponent(key)}`,
        async release() {
          return (await control<ReleaseResult>("POST", `hook/${encodeURIComponent(key)}/release`)).released;
        },
      };
    },
  };
}
