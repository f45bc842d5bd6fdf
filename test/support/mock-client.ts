/**
 * Scripts the mock server from tests running inside workerd, over plain fetch to
 * `inject("mockUrl")`. Each test uses its own key so concurrent tests never share traffic.
 */
import { inject } from "vitest";
import type {
  HookStep,
  ModelStep,
  RecordedRequest,
  ReleaseResult,
  RequestsResult,
  ScriptResult,
} from "./mock-protocol";

export type { HookStep, ModelStep, RecordedRequest } from "./mock-protocol";

/** How long `waitForRequests` polls before failing the test, and how often. */
const WAIT_TIMEOUT_MS = 15_000;
const POLL_INTERVAL_MS = 10;

export function mockUrl(): string {
  return inject("mockUrl");
}

/** A fresh key; use it as the model name (model queue) or the webhook path (hook queue). */
export function uniqueKey(prefix: string): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

/** The webhook URL whose calls are recorded and answered under `key`. */
export function mockHookUrl(key: string, subpath = ""): string {
  return `${mockUrl()}/hook/${encodeURIComponent(key)}${subpath}`;
}

async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${mockUrl()}/_mock/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`mock control ${method} ${path} failed: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

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
        if (Date.now() > deadline) {
          throw new Error(`mock ${kind} "${key}": ${seen.length} of ${count} requests after ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
      }
    },
    async forget() {
      await control("DELETE", encodeURIComponent(key));
    },
  };
}

/** The model queue for `key`; the key is the `model` field of Messages API requests. */
export function mockModel(key: string): MockQueue<ModelStep> {
  return queue<ModelStep>("model", key);
}

export interface MockHook extends MockQueue<HookStep> {
  readonly url: string;
  /** Answers every webhook call currently held under the key; returns how many. */
  release(): Promise<number>;
}

/** The webhook queue for `key`; calls to `mockHookUrl(key)` are recorded here. */
export function mockHook(key: string): MockHook {
  return {
    ...queue<HookStep>("hook", key),
    url: mockHookUrl(key),
    async release() {
      const path = `hook/${encodeURIComponent(key)}/release`;
      return (await control<ReleaseResult>("POST", path)).released;
    },
  };
}
