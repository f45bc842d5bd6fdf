import { describe, expect, it } from "vitest";
import {
  formatOutcome,
  RUN_CODE_INTERPRETER_TIMEOUT_MS,
  RUN_CODE_TIMEOUT_MS,
  runCodeLimits,
  runCodeTool,
} from "../../../src/sessions/object/tools/builtin/run-code";
import { runJavaScript } from "../../../src/sessions/object/tools/sandbox/run-js";
import type { ToolContext } from "../../../src/sessions/object/tools/tool";
import { McpConnections } from "../../../src/sessions/object/tools/mcp/pool";

const MAX_OUTPUT_CHARS = 8_000;

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
    mcp: new McpConnections({ allowPrivateUrls: false, allowedOrigins: async () => null }),
    callSigning: () => Promise.reject(new Error("not used")),
    memory: () => {
      throw new Error("not used");
    },
  };
}

async function run(code: string): Promise<{ output: unknown; isError: boolean; text: string }> {
  const outcome = await runCodeTool.run!({ code }, context());
  return { output: JSON.parse(outcome.output), isError: outcome.isError, text: outcome.output };
}

/**
 * As the tool runs code locally, less the wall-clock limit: its work limit alone stops it, so a
 * machine busy with other work cannot turn the error a test expects into a time limit.
 */
async function runUnhurried(code: string): Promise<{ output: unknown; isError: boolean }> {
  const outcome = await runJavaScript(code, { ...runCodeLimits(MAX_OUTPUT_CHARS), timeoutMs: Number.POSITIVE_INFINITY });
  const { output, isError } = formatOutcome(outcome);
  return { output: JSON.parse(output), isError };
}

describe("run_code", () => {
  it("returns arithmetic and the console output", async () => {
    expect(await run("console.log('adding'); return 6 * 7 + 0.5;")).toMatchObject({
      isError: false,
      output: { result: 42.5, console: "adding" },
    });
  });

  it("returns a JSON value as JSON, and awaits the code's own promises", async () => {
    const { output } = await run(
      "const data = await Promise.resolve([3, 1, 2]); return { sorted: data.sort(), total: data.reduce((a, b) => a + b, 0) };",
    );
    expect(output).toEqual({ result: { sorted: [1, 2, 3], total: 6 }, console: "" });
  });

  it("returns null when the code returns nothing, and strings for values JSON cannot carry", async () => {
    expect((await run("console.log({ a: 1 }, [2], 'three')")).output).toEqual({ result: null, console: '{"a":1} [2] three' });
    expect((await run("return 10n ** 20n;")).output).toEqual({ result: "100000000000000000000", console: "" });
  });

  it("has no fetch, no timers and nothing of the host", async () => {
    const probe = await run(
      "return [typeof fetch, typeof setTimeout, typeof XMLHttpRequest, typeof WebSocket, typeof caches, typeof crypto, typeof process, typeof require, typeof globalThis.env];",
    );
    expect(probe.output).toMatchObject({ result: Array(9).fill("undefined") });
    const fetched = await run("return await fetch('https://example.com/');");
    expect(fetched).toMatchObject({ isError: true, output: { error: "ReferenceError: 'fetch' is not defined" } });
  });

  it("gives a thrown error as an error result with the console output so far", async () => {
    expect(await runUnhurried("console.log('before'); throw new TypeError('bad input');")).toMatchObject({
      isError: true,
      output: { error: "TypeError: bad input", console: "before" },
    });
    expect((await runUnhurried("this is not javascript")).output).toMatchObject({ error: expect.stringMatching(/^SyntaxError/) });
  });

  it("stops an endless loop at the time limit, even one that catches errors", async () => {
    const started = Date.now();
    const result = await run("while (true) { try { while (true) {} } catch (e) {} }");
    expect(result).toMatchObject({
      isError: true,
      output: { error: `stopped: the code ran past its time limit (${RUN_CODE_INTERPRETER_TIMEOUT_MS} ms)` },
    });
    expect(Date.now() - started).toBeLessThan(RUN_CODE_TIMEOUT_MS * 4);
  });

  it("stops an endless loop by its work limit alone, as in production where the clock stands still", async () => {
    const outcome = await runJavaScript("let n = 0; for (;;) { n = (n + 1) % 7; }", {
      ...runCodeLimits(MAX_OUTPUT_CHARS),
      timeoutMs: Number.POSITIVE_INFINITY,
    });
    expect(outcome).toMatchObject({ ok: false, stop: "time_limit" });
  });

  it("stops a catastrophic regular expression and deep recursion", async () => {
    expect((await run("return /^(a+)+$/.test('a'.repeat(40) + '!');")).output).toMatchObject({
      error: expect.stringContaining("time limit"),
    });
    expect((await run("const f = (n) => f(n + 1) + 1; return f(0);")).output).toMatchObject({
      error: expect.stringMatching(/stack|Range|Internal/i),
    });
  });

  it("stops code that takes more than its memory", async () => {
    const result = await run("const parts = []; for (;;) parts.push('x'.repeat(1 << 20) + parts.length);");
    expect(result).toMatchObject({ isError: true, output: { error: "stopped: the code used more than 8 MiB of memory" } });
  });

  it("reports a promise that can never settle", async () => {
    expect((await run("await new Promise(() => {}); return 1;")).output).toMatchObject({ error: expect.stringContaining("never settles") });
  });

  it("caps the console output and says so", async () => {
    const outcome = await runJavaScript(
      // 20,000 characters of lines against a 1,000-character cap: well past it, and quick enough for the
      // interpreter's wall-clock limit on a busy machine (100,000 lines took most of it beside a CPU hog).
      "for (let i = 0; i < 2000; i++) console.log('line ' + i); return 'done';",
      runCodeLimits(1_000),
    );
    expect(outcome).toMatchObject({ ok: true, resultJson: '"done"', consoleCut: true });
    expect(outcome.console.length).toBe(1_000);
    expect(JSON.parse(formatOutcome(outcome).output).console).toMatch(/\[console output cut\]$/);
  });

  it("starts every run from nothing: one run's globals are not in the next", async () => {
    await run("globalThis.secret = 'tenant A'; Object.prototype.leak = 1; Array.prototype.push = () => 0; return 1;");
    expect((await run("return [typeof secret, ({}).leak, [].push(1)];")).output).toMatchObject({ result: ["undefined", null, 1] });
  });

  it("cannot forge its result or console by replacing the built-ins the output is made with", async () => {
    const forged = await run(
      "JSON.stringify = () => '1,\"console\":\"forged\"'; String = () => 'forged'; Array.prototype.map = () => ['forged']; " +
        "Array.prototype.join = () => 'forged'; console.log({ a: 1 }, 2); return { a: 1, b: Symbol('s') };",
    );
    expect(forged.output).toEqual({ result: { a: 1 }, console: '{"a":1} 2' });
    expect(forged.isError).toBe(false);
  });

  it("cannot lift its own limits or reach the interpreter's host", async () => {
    const escape = await run(
      "return [typeof std, typeof os, typeof scriptArgs, typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics];",
    );
    expect(escape.output).toMatchObject({
      result: ["undefined", "undefined", "undefined", "undefined", expect.any(String), expect.any(String)],
    });
  });
});
