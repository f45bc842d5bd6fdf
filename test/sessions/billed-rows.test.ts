/**
 * What a step costs in rows written, the unit Durable Object storage bills most: every SQL
 * statement's `rowsWritten` (indexes and counters included) and every key-value write, counted
 * over a run of tool-using steps once the session exists. The bench (BENCHMARKS.md) compares it
 * with the bare loop; this holds the count, which does not depend on the machine.
 */
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { newTestSession, sessionInit, unwrap, waitForStatus } from "../support/agent-session";

const toolUse = (id: string) => ({ type: "tool_use", id, name: "get_time", input: {} });
const text = (t: string) => ({ type: "text", text: t });

/** Rows written per step at most: a model unit and a tool unit. */
const MAX_ROWS_PER_STEP = 10;

type Restore = () => void;
const restores: Restore[] = [];
afterEach(() => restores.splice(0).forEach((restore) => restore()));

/** Counts the rows every statement and key-value write of every object in this runtime writes. */
function countRows(sqlProto: { exec: (...args: unknown[]) => unknown }, kvProto: Record<string, (...args: unknown[]) => unknown>) {
  const cursors: { query: string; cursor: { rowsWritten: number } }[] = [];
  const kvWrites = new Map<string, number>();
  const exec = sqlProto.exec;
  sqlProto.exec = function (this: unknown, ...args: unknown[]) {
    const cursor = exec.apply(this, args) as { rowsWritten: number };
    cursors.push({ query: String(args[0]).replace(/\s+/g, " ").slice(0, 60), cursor });
    return cursor;
  };
  restores.push(() => (sqlProto.exec = exec));
  for (const method of ["put", "delete"]) {
    const original = kvProto[method]!;
    kvProto[method] = function (this: unknown, key: unknown, ...rest: unknown[]) {
      kvWrites.set(`kv.${method} ${String(key)}`, (kvWrites.get(`kv.${method} ${String(key)}`) ?? 0) + 1);
      return original.call(this, key, ...rest);
    };
    restores.push(() => (kvProto[method] = original));
  }
  return () => {
    const byKind = new Map<string, number>(kvWrites);
    for (const { query, cursor } of cursors) if (cursor.rowsWritten > 0) byKind.set(query, (byKind.get(query) ?? 0) + cursor.rowsWritten);
    return byKind;
  };
}

describe("rows written by a run", () => {
  it(`stay within ${MAX_ROWS_PER_STEP} per tool-using step`, async () => {
    const t = newTestSession();
    const steps = 20;
    await t.model.script(...Array.from({ length: steps - 1 }, (_, i) => ({ reply: { content: [toolUse(`toolu_${i}`)] } })), {
      reply: { content: [text("done")] },
    });
    unwrap(
      await t.stub.create(sessionInit(t, { tools: [{ type: "builtin", name: "get_time" }], limits: { max_steps_per_run: steps } }), null),
    );
    const protos = await runInDurableObject(t.stub, async (_i, state) => ({
      sql: Object.getPrototypeOf(state.storage.sql),
      kv: Object.getPrototypeOf(state.storage.kv),
    }));
    const rows = countRows(protos.sql, protos.kv);
    unwrap(await t.stub.start("go"));
    expect(await waitForStatus(t, ["done"], 30_000)).toMatchObject({ usage: { steps } });
    const byKind = rows();
    const total = [...byKind.values()].reduce((sum, n) => sum + n, 0);
    console.log(
      `rows written per step: ${(total / steps).toFixed(2)}\n${[...byKind]
        .sort((a, b) => b[1] - a[1])
        .map(([kind, n]) => `${(n / steps).toFixed(2)}  ${kind}`)
        .join("\n")}`,
    );
    expect(total).toBeGreaterThan(steps * 4); // the count works: each step writes its messages at least
    expect(total / steps).toBeLessThanOrEqual(MAX_ROWS_PER_STEP);
    // get_time is instant: its calls go from pending to done in one write, never marked running.
    expect([...byKind.keys()].filter((kind) => kind.startsWith("UPDATE tool_calls SET status = ?, started_at"))).toEqual([]);
    expect(byKind.get("UPDATE tool_calls SET status = ?, output = ?, is_error = ?, ")).toBe(steps - 1);
  }, 60_000);
});
