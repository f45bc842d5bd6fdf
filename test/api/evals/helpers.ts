/** Helpers for the dataset and eval route tests: an author, its datasets and evals, through the public API. */
import type { Dataset, Eval } from "../../../src/evals/types";
import { callJson } from "../../support/api";
import { author } from "../agents/helpers";
import { type Caller, getJson } from "../sessions/helpers";

export { author };
export type { Dataset, Eval };

export async function createDataset(who: Caller, body: Record<string, unknown>): Promise<Dataset> {
  const res = await callJson("/v1/datasets", "POST", body, who.headers);
  if (res.status !== 201) throw new Error(`create dataset answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Dataset;
}

export async function startEval(who: Caller, body: Record<string, unknown>): Promise<Eval> {
  const res = await callJson("/v1/evals", "POST", body, who.headers);
  if (res.status !== 202) throw new Error(`create eval answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Eval;
}

/** Polls the eval until it is no longer running. */
export async function waitForEval(who: Caller, id: string, timeoutMs = 15_000): Promise<Eval> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await getJson<Eval>(who, `/v1/evals/${id}`);
    if (found.status !== "running" && found.progress.running === 0) return found;
    if (Date.now() > deadline) throw new Error(`eval ${id} still ${found.status}: ${JSON.stringify(found.progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
