import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { getJson, text, toolUse } from "../sessions/helpers";
import { archive, createAgent } from "../agents/helpers";
import { author, createDataset, type Eval, startEval, waitForEval } from "./helpers";

const ITEMS = [
  { input: "Capital of France?", expected: "Paris" },
  { input: "Capital of Japan?", expected: "Tokyo" },
  { input: "Capital of Italy?", expected: "Rome" },
];

describe("evals", () => {
  it("run each item as a session tagged with the eval, score it, and give the means, cost and items", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    // One at a time, so the items take the scripted answers in order: two right, one wrong after a tool call.
    await model.script(
      { reply: { content: [text("It is Paris.")] } },
      { reply: { content: [text("Tokyo, of course.")] } },
      { reply: { content: [toolUse("c1", "get_time", {})], stop_reason: "tool_use" } },
      { reply: { content: [text("Milan.")] } },
    );
    const agent = await createAgent(who, { name: "geo", model: model.key, tools: [{ type: "builtin", name: "get_time" }] });
    const dataset = await createDataset(who, { name: "capitals", items: ITEMS });
    const started = await startEval(who, {
      agent: `${agent.id}@1`,
      dataset_id: dataset.id,
      scorers: [{ type: "contains" }, { type: "max_steps", max: 1 }, { type: "tool_called", tool: "get_time", name: "used_clock" }],
      concurrency: 1,
    });
    expect(started).toMatchObject({ status: "running", progress: { total: 3 }, agent: { agent_id: agent.id, version: 1 } });

    const done = await waitForEval(who, started.id);
    expect(done.status).toBe("completed");
    expect(done.scores).toEqual({ contains: 0.666667, max_steps: 0.666667, used_clock: 0.333333 });
    expect(done.items.map((i) => [i.status, i.scores.contains?.score, i.scores.max_steps?.score])).toEqual([
      ["done", 1, 1],
      ["done", 1, 1],
      ["done", 0, 0],
    ]);
    expect(done.duration_ms).toBeGreaterThan(0);
    const session = await getJson<{ metadata: Record<string, string>; agent: { version: number } }>(
      who,
      `/v1/sessions/${done.items[2]!.session_id}`,
    );
    expect(session.metadata).toMatchObject({ eval_id: started.id, eval_item: "2" });
    expect(session.agent.version).toBe(1);
    const listed = await getJson<{ data: Eval[] }>(who, "/v1/evals");
    expect(listed.data.map((e) => e.id)).toEqual([started.id]);
  });

  it("scores with a judge session, and gives null (with the reason) for a verdict that does not parse", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    const judge = mockModel(uniqueKey("judge"));
    await model.script({ reply: { content: [text("Paris")] } }, { reply: { content: [text("Tokyo")] } });
    await judge.script(
      { reply: { content: [text('{"score": 0.75, "reason": "Right, terse."}')] } },
      { reply: { content: [text("I would say 0.9")] } },
    );
    const agent = await createAgent(who, { name: "judged", model: model.key });
    const dataset = await createDataset(who, { name: "two", items: ITEMS.slice(0, 2) });
    const started = await startEval(who, {
      agent: agent.id,
      dataset_id: dataset.id,
      scorers: [{ type: "judge", model: judge.key, rubric: "Names the capital." }],
      concurrency: 1,
    });
    const done = await waitForEval(who, started.id);
    expect(done.items.map((i) => i.scores.judge)).toEqual([
      { score: 0.75, reason: "Right, terse." },
      { score: null, reason: expect.stringMatching(/not a JSON object/) },
    ]);
    expect(done.scores.judge).toBe(0.75);
    const asked = await judge.requests();
    expect(JSON.stringify(asked[0]!.body)).toContain("Names the capital.");
  });

  it("refuses bad input with paths: an invalid regex, an archived agent, an unknown alias, too much concurrency", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "bad-input", model: "mock-any" });
    const dataset = await createDataset(who, { name: "one", items: ITEMS.slice(0, 1) });
    const post = (body: Record<string, unknown>) =>
      callJson("/v1/evals", "POST", { agent: agent.id, dataset_id: dataset.id, scorers: [{ type: "exact" }], ...body }, who.headers);

    const regex = await post({ scorers: [{ type: "exact" }, { type: "regex", pattern: "(?<=a)b" }] });
    expect(regex.status).toBe(400);
    expect((await readProblem(regex)).errors?.[0]?.path).toBe("body.scorers.1.pattern");
    const schema = await post({ scorers: [{ type: "json_schema", schema: { type: "string", pattern: "(a)\\1" } }] });
    expect((await readProblem(schema)).errors?.[0]?.path).toBe("body.scorers.0.schema.pattern");
    const alias = await post({ agent: `${agent.id}@nope` });
    expect(alias.status).toBe(400);
    expect((await readProblem(alias)).errors?.[0]?.path).toBe("body.agent");
    const slots = await post({ concurrency: 10_000 });
    expect((await readProblem(slots)).errors?.[0]?.path).toBe("body.concurrency");
    expect((await post({ dataset_id: "dst_nothing_here_at_all_x" })).status).toBe(404);

    await archive(who, agent.id);
    const archived = await post({});
    expect(archived.status).toBe(409);
    expect((await readProblem(archived)).errors?.[0]?.path).toBe("body.agent");
  });

  it("cancel stops the items not started and cancels the running session", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const agent = await createAgent(who, { name: "slow", model: model.key });
    const dataset = await createDataset(who, { name: "three", items: ITEMS });
    const started = await startEval(who, { agent: agent.id, dataset_id: dataset.id, scorers: [{ type: "exact" }], concurrency: 1 });
    await model.waitForRequests(1);
    const cancelled = await call(`/v1/evals/${started.id}/cancel`, { method: "POST", headers: who.headers });
    expect(cancelled.status).toBe(200);
    const done = await waitForEval(who, started.id);
    expect(done.status).toBe("cancelled");
    expect(done.items.map((i) => i.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    const session = await getJson<{ status: string }>(who, `/v1/sessions/${done.items[0]!.session_id}`);
    expect(session.status).toBe("cancelled");
    expect((await call(`/v1/evals/${started.id}/cancel`, { method: "POST", headers: who.headers })).status).toBe(409);
  });

  it("compares two evals item by item and lists the regressions", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [text("Paris")] } },
      { reply: { content: [text("Tokyo")] } },
      { reply: { content: [text("Rome")] } },
      { reply: { content: [text("Paris")] } },
      { reply: { content: [text("Kyoto")] } },
      { reply: { content: [text("Rome")] } },
    );
    const agent = await createAgent(who, { name: "compared", model: model.key });
    const dataset = await createDataset(who, { name: "capitals", items: ITEMS });
    const body = { agent: agent.id, dataset_id: dataset.id, scorers: [{ type: "exact" }], concurrency: 1 };
    const a = await waitForEval(who, (await startEval(who, body)).id);
    const b = await waitForEval(who, (await startEval(who, body)).id);
    const comparison = await getJson<{
      regressions: number[];
      score_deltas: Record<string, number>;
      items: { deltas: Record<string, number> }[];
    }>(who, `/v1/evals/compare?a=${a.id}&b=${b.id}`);
    expect(comparison.regressions).toEqual([1]);
    expect(comparison.items[1]!.deltas).toEqual({ exact: -1 });
    expect(comparison.score_deltas.exact).toBeCloseTo(-1 / 3, 5);
    // Evals of another dataset share no items with these: a 400, not a comparison by index.
    const other = await createDataset(who, { name: "rivers", items: [{ input: "Longest river?", expected: "Nile" }] });
    const elsewhere = await startEval(who, { ...body, dataset_id: other.id });
    await call(`/v1/evals/${elsewhere.id}/cancel`, { method: "POST", headers: who.headers });
    const mismatched = await call(`/v1/evals/compare?a=${a.id}&b=${elsewhere.id}`, { headers: who.headers });
    expect(mismatched.status).toBe(400);
    expect((await readProblem(mismatched)).errors?.[0]?.path).toBe("query.b");
  });
});
