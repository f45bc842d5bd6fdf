/**
 * `run_code` in a Dynamic Worker, as production runs it (RUN_CODE_ISOLATE=dynamic_worker). The
 * CPU limit that makes it safe is enforced by production's runtime only: the local one runs the
 * child on this thread without a limit, so no test here runs code that spins.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runCodeChildLimits, runCodeTool } from "../../../src/sessions/object/tools/builtin/run-code";
import { runInChildIsolate } from "../../../src/sessions/object/tools/sandbox/child-isolate";
import { McpConnections } from "../../../src/sessions/object/tools/mcp/pool";
import type { ToolContext } from "../../../src/sessions/object/tools/tool";

const MAX_OUTPUT_CHARS = 8_000;
/** The runtime's own `fetch`, found past the shadowing global: it must still reach nothing. */
const FETCH_ANYWAY =
  "const f = Object.getPrototypeOf(globalThis).fetch; if (typeof f !== 'function') return 'no fetch'; " +
  "try { return (await f.call(globalThis, 'https://example.com/')).status; } catch (e) { return 'failed: ' + e.message; }";
const loader = env.LOADER!;

function context(): ToolContext {
  return {
    sessionId: "ses_test",
    tenantId: "tenant-a",
    createdBy: "user",
    toolCallId: "toolu_1",
    idempotencyKey: "ses_test:toolu_1",
    signal: new AbortController().signal,
    allowPrivateUrls: false,
    maxOutputChars: MAX_OUTPUT_CHARS,
    codeLoader: loader,
    mcp: new McpConnections({ allowPrivateUrls: false, allowedOrigins: async () => null }),
    callSigning: () => Promise.reject(new Error("not used")),
    memory: () => {
      throw new Error("not used");
    },
  };
}

async function run(code: string): Promise<{ output: unknown; isError: boolean }> {
  const outcome = await runCodeTool.run!({ code }, context());
  return { output: JSON.parse(outcome.output), isError: outcome.isError };
}

describe("run_code in a Dynamic Worker", () => {
  it("returns the value and the console output, and awaits the code's own promises", async () => {
    expect(
      await run("console.log('adding', { a: 1 }); const d = await Promise.resolve([3, 1, 2]); return { sorted: d.sort(), n: 6 * 7 };"),
    ).toEqual({
      isError: false,
      output: { result: { sorted: [1, 2, 3], n: 42 }, console: 'adding {"a":1}' },
    });
    expect((await run("console.log('nothing returned')")).output).toEqual({ result: null, console: "nothing returned" });
    expect((await run("return 10n ** 20n;")).output).toEqual({ result: "100000000000000000000", console: "" });
  });

  it("runs the code as the interpreter does, in sloppy mode", async () => {
    expect((await run("total = 0; for (var i = 1; i <= 4; i++) total += i; return total;")).output).toEqual({ result: 10, console: "" });
  });

  it("has no network, no timers and no bindings", async () => {
    const probe = await run("return [typeof fetch, typeof setTimeout, typeof setInterval, typeof caches, typeof env];");
    expect(probe.output).toEqual({ result: Array(5).fill("undefined"), console: "" });
    // Even a fetch found another way has nowhere to go.
    const fetched = await run(FETCH_ANYWAY);
    expect(fetched.output).toEqual({ result: expect.stringMatching(/^failed: /), console: "" });
  });

  it("gives a thrown error and a syntax error as error results, with the console so far", async () => {
    expect(await run("console.log('before'); throw new TypeError('bad input');")).toEqual({
      isError: true,
      output: { error: "TypeError: bad input", console: "before" },
    });
    expect(await run("throw 'plain';")).toMatchObject({ isError: true, output: { error: "uncaught: plain" } });
    expect((await run("this is not javascript")).output).toMatchObject({ error: expect.stringMatching(/SyntaxError/) });
  });

  it("starts every run from nothing, and cannot forge its result or console", async () => {
    await run("globalThis.secret = 'tenant A'; Object.prototype.leak = 1; return 1;");
    expect((await run("return [typeof secret, ({}).leak];")).output).toEqual({ result: ["undefined", null], console: "" });
    const forged = await run(
      "JSON.stringify = () => '1,\"console\":\"forged\"'; String = () => 'forged'; console.log({ a: 1 }, 2); return { a: 1 };",
    );
    expect(forged).toEqual({ isError: false, output: { result: { a: 1 }, console: '{"a":1} 2' } });
  });

  it("ends a run that waits on a promise that never settles", async () => {
    const outcome = await runInChildIsolate(loader, "await new Promise(() => {});", runCodeChildLimits(MAX_OUTPUT_CHARS));
    expect(outcome).toMatchObject({ ok: false, stop: "never_settled" });
  });

  it("caps the console and refuses a result past its length", async () => {
    const limits = { ...runCodeChildLimits(1_000), resultChars: 10_000 };
    const chatty = await runInChildIsolate(loader, "for (let i = 0; i < 10000; i++) console.log('line ' + i); return 'done';", limits);
    expect(chatty).toMatchObject({ ok: true, resultJson: '"done"', consoleCut: true });
    expect(chatty.console.length).toBe(1_000);
    const large = await runInChildIsolate(loader, "return 'x'.repeat(20000);", limits);
    expect(large).toMatchObject({ ok: false, error: "stopped: the result is longer than 10000 characters" });
  });
});
