/**
 * The `run_code` tool end to end in `wrangler dev`: results, no network, an endless loop stopped
 * by the limit with the run going on, nothing shared between tenants, and, while one session's
 * code loops, other sessions' steps and another tenant's requests keep being answered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_CODE_INTERPRETER_TIMEOUT_MS } from "../../src/limits";
import type { ModelStep } from "../support/mock-protocol";
import { loadFactor, underLoad } from "./support/machine-load";
import { say, waitForFinal } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";

const STEP_TIMEOUT_MS = 60_000;
const RUN_CODE = { type: "builtin" as const, name: "run_code" };
const LOOP = "while (true) {}";
/** Slower per interrupt check than an empty loop: it runs into the wall-clock limit instead. */
const ALLOCATING_LOOP = "const kept = []; for (;;) { kept.push({ at: kept.length }); if (kept.length > 1000) kept.length = 0; }";
/**
 * The code tool stops a run after about 0.3 s; a request waiting on a stalled isolate would wait
 * longer than this (on an idle machine; stretched by its load, `machine-load.ts`).
 */
const MAX_LATENCY_MS = 6_000;

function runCode(id: string, code: string): ModelStep {
  return { reply: { content: [{ type: "tool_use", id, name: "run_code", input: { code } }] } };
}

describe("run_code", () => {
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  async function outputs(tenant: string, steps: ModelStep[]) {
    const client = await stack.client(tenant);
    const model = stack.mock.model(uniqueName("model"));
    await model.script(...steps, say("done"));
    const session = await client.createSession({ input: "compute", model: model.key, tools: [RUN_CODE] });
    const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);
    expect(final.status, stack.logs()).toBe("done");
    return (await client.toolCalls(session.id)).map((call) => ({
      output: JSON.parse(call.output ?? "null") as Record<string, unknown>,
      is_error: call.is_error,
    }));
  }

  it("returns arithmetic and JSON results with the console output", async () => {
    const results = await outputs(uniqueName("tenant"), [
      runCode("toolu_math", "return (17 * 3 + 9) / 4;"),
      runCode(
        "toolu_json",
        "const rows = [{ n: 2 }, { n: 5 }]; console.log('rows', rows.length); return { total: rows.reduce((s, r) => s + r.n, 0), names: rows.map((r) => 'n' + r.n) };",
      ),
    ]);
    expect(results).toEqual([
      { is_error: false, output: { result: 15, console: "" } },
      { is_error: false, output: { result: { total: 7, names: ["n2", "n5"] }, console: "rows 2" } },
    ]);
  });

  it("has no network: fetch does not exist inside", async () => {
    const [result] = await outputs(uniqueName("tenant"), [
      runCode("toolu_fetch", `return await fetch(${JSON.stringify(stack.mock.url + "/health")});`),
    ]);
    expect(result).toEqual({ is_error: true, output: { error: "ReferenceError: 'fetch' is not defined", console: "" } });
  });

  it("lets no tenant's code see another's: each call starts from nothing", async () => {
    const [set] = await outputs(uniqueName("tenant-a"), [
      runCode("toolu_set", "globalThis.secret = 'tenant A'; Object.prototype.leak = 'A'; return typeof secret;"),
    ]);
    const [read] = await outputs(uniqueName("tenant-b"), [
      runCode("toolu_read", "return [typeof secret, ({}).leak === undefined, typeof globalThis.env, typeof caches];"),
    ]);
    expect(set?.output).toMatchObject({ result: "string" });
    expect(read?.output).toMatchObject({ result: ["undefined", true, "undefined", "undefined"] });
  });

  it("stops endless loops at the limit while other sessions and tenants keep being answered", async () => {
    const looper = await stack.client(uniqueName("tenant-loop"));
    const loopModel = stack.mock.model(uniqueName("model"));
    await loopModel.script(
      runCode("toolu_l1", LOOP),
      runCode("toolu_l2", ALLOCATING_LOOP),
      runCode("toolu_l3", LOOP),
      say("gave up looping"),
    );
    const other = await stack.client(uniqueName("tenant-other"));
    const otherModel = stack.mock.model(uniqueName("model"));
    const steps: ModelStep[] = Array.from({ length: 6 }, (_, i) => ({
      delay_ms: 300,
      reply: { content: [{ type: "tool_use", id: `toolu_t${i}`, name: "get_time", input: {} }] },
    }));
    await otherModel.script(...steps, say("six times"));
    const watcher = await stack.client(uniqueName("tenant-watch"));

    const looping = await looper.createSession({ input: "loop", model: loopModel.key, tools: [RUN_CODE] });
    const busy = await other.createSession({ input: "time", model: otherModel.key, tools: [{ type: "builtin", name: "get_time" }] });
    // A third tenant reads its (empty) list all along; every answer's wait is measured.
    const latencies: number[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const started = Date.now();
        const res = await watcher.request("GET", "/v1/sessions");
        expect(res.status).toBe(200);
        latencies.push(Date.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const [loopFinal, busyFinal] = await Promise.all([
      waitForFinal(looper, looping.id, STEP_TIMEOUT_MS),
      waitForFinal(other, busy.id, STEP_TIMEOUT_MS),
    ]);
    watching = false;
    await watch;

    expect(loopFinal.status, stack.logs()).toBe("done");
    expect(busyFinal.status).toBe("done");
    const loopCalls = await looper.toolCalls(looping.id);
    expect(loopCalls.map((call) => [call.is_error, JSON.parse(call.output ?? "{}").error])).toEqual(
      Array(3).fill([true, `stopped: the code ran past its time limit (${RUN_CODE_INTERPRETER_TIMEOUT_MS} ms)`]),
    );
    expect((await other.toolCalls(busy.id)).every((call) => call.status === "done")).toBe(true);
    const codeMs = loopCalls.map((call) => Date.parse(call.finished_at ?? "") - Date.parse(call.started_at ?? ""));
    console.log(
      `run_code calls took ${codeMs.join(", ")} ms; ${latencies.length} requests of another tenant meanwhile, slowest ${Math.max(...latencies)} ms`,
    );
    expect(latencies.length).toBeGreaterThan(10);
    const load = loadFactor();
    expect(Math.max(...latencies), `latencies: ${latencies.join(", ")}; load ${load.toFixed(1)}`).toBeLessThan(
      underLoad(MAX_LATENCY_MS, load),
    );
  });
});
