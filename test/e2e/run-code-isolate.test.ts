/**
 * `run_code` as deployed (RUN_CODE_ISOLATE=dynamic_worker) on `wrangler dev`: the call goes from
 * the session's object to a Dynamic Worker of its own, which answers with no network reachable.
 * Only code that does not spin runs here: the local runtime enforces no CPU limit on a child
 * (docs/tools.md), which is why local runs keep the interpreter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { say, waitForFinal } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";

const RUN_TIMEOUT_MS = 60_000;
/** The runtime's own `fetch`, found past the shadowing global: it must still reach nothing. */
const FETCH_ANYWAY =
  "const f = Object.getPrototypeOf(globalThis).fetch; if (typeof f !== 'function') return 'no fetch'; " +
  "try { return (await f.call(globalThis, 'https://example.com/')).status; } catch (e) { return 'failed: ' + e.message; }";

const runCode = (id: string, code: string): ModelStep => ({
  reply: { content: [{ type: "tool_use", id, name: "run_code", input: { code } }] },
});

describe("run_code in a Dynamic Worker", () => {
  let stack: Stack;

  beforeAll(async () => {
    // Allowed here on purpose: the platform refuses the deployed mode under a local runtime otherwise.
    stack = await startStack({ vars: { RUN_CODE_ISOLATE: "dynamic_worker", ALLOW_LOCAL_DYNAMIC_WORKER: "true" } });
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("runs the model's code in a V8 isolate of its own, with no network", async () => {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    await model.script(
      // WebAssembly exists in V8, not in the interpreter: the answer says where the code ran.
      runCode("toolu_1", "console.log('in the child'); return [typeof WebAssembly, typeof fetch, typeof setTimeout, 6 * 7];"),
      runCode("toolu_2", FETCH_ANYWAY),
      runCode("toolu_3", "this is not javascript"),
      say("done"),
    );
    const session = await client.createSession({ input: "compute", model: model.key, tools: [{ type: "builtin", name: "run_code" }] });
    const final = await waitForFinal(client, session.id, RUN_TIMEOUT_MS);
    expect(final.status, stack.logs()).toBe("done");
    const calls = await client.toolCalls(session.id);
    expect(calls.map((call) => JSON.parse(call.output ?? "null"))).toEqual([
      { result: ["object", "undefined", "undefined", 42], console: "in the child" },
      { result: expect.stringMatching(/^failed: /), console: "" },
      { error: expect.stringMatching(/SyntaxError/), console: "" },
    ]);
    expect(calls.map((call) => call.is_error)).toEqual([false, false, true]);
  });
});
