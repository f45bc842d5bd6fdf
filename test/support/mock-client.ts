/**
 * Scripts the mock server from tests running inside workerd, at `inject("mockUrl")`. Each
 * test uses its own key so concurrent tests never share traffic.
 */
import { inject } from "vitest";
import { type MockHook, type MockQueue, mockControl, type ModelStep } from "./mock-control";

export type { HookStep, MockHook, MockQueue, ModelStep, RecordedRequest } from "./mock-control";

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

/** The model queue for `key`; the key is the `model` field of Messages API requests. */
export function mockModel(key: string): MockQueue<ModelStep> {
  return mockControl(mockUrl()).model(key);
}

/** The webhook queue for `key`; calls to `mockHookUrl(key)` are recorded here. */
export function mockHook(key: string): MockHook {
  return mockControl(mockUrl()).hook(key);
}
