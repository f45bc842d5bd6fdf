import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { caller, createSession, getJson, text, waitForStatus } from "../sessions/helpers";
import { author, createDataset, type Dataset } from "./helpers";

describe("datasets", () => {
  it("are created, listed, read, changed item by item (each change a new version) and deleted", async () => {
    const who = await author();
    const dataset = await createDataset(who, {
      name: "capitals",
      items: [
        { input: "France?", expected: "Paris" },
        { input: "Japan?", expected: "Tokyo" },
      ],
    });
    expect(dataset).toMatchObject({ name: "capitals", version: 1, item_count: 2 });

    const added = (await (
      await callJson(`/v1/datasets/${dataset.id}/items`, "POST", { items: [{ input: "Italy?", expected: "Rome" }] }, who.headers)
    ).json()) as Dataset;
    expect(added).toMatchObject({ version: 2, item_count: 3 });
    const replaced = await callJson(`/v1/datasets/${dataset.id}/items/0`, "PUT", { input: "Spain?", expected: "Madrid" }, who.headers);
    expect(((await replaced.json()) as Dataset).version).toBe(3);
    const deleted = await call(`/v1/datasets/${dataset.id}/items/1`, { method: "DELETE", headers: who.headers });
    expect(((await deleted.json()) as Dataset).item_count).toBe(2);

    const read = await getJson<Dataset & { items: { input: string }[] }>(who, `/v1/datasets/${dataset.id}`);
    expect(read.version).toBe(4);
    expect(read.items.map((i) => i.input)).toEqual(["Spain?", "Italy?"]);
    expect((await call(`/v1/datasets/${dataset.id}/items/2`, { method: "DELETE", headers: who.headers })).status).toBe(404);

    const page = await getJson<{ data: Dataset[] }>(who, "/v1/datasets");
    expect(page.data.map((d) => d.id)).toEqual([dataset.id]);
    expect((await call(`/v1/datasets/${dataset.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect((await call(`/v1/datasets/${dataset.id}`, { headers: who.headers })).status).toBe(404);
  });

  it("refuses more than 1,000 items, at the items' path", async () => {
    const who = await author();
    const items = Array.from({ length: 1_001 }, (_, i) => ({ input: `q${i}` }));
    const res = await callJson("/v1/datasets", "POST", { name: "big", items }, who.headers);
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.[0]?.path).toBe("body.items");
    const dataset = await createDataset(who, { name: "almost", items: items.slice(0, 999) });
    const over = await callJson(`/v1/datasets/${dataset.id}/items`, "POST", { items: items.slice(0, 2) }, who.headers);
    expect(over.status).toBe(400);
    expect((await readProblem(over)).errors?.[0]?.path).toBe("body.items");
  });

  it("imports JSONL, naming each bad line, and adds nothing unless all are good", async () => {
    const who = await author();
    const dataset = await createDataset(who, { name: "jsonl", items: [] });
    const jsonl = (body: string, type = "application/x-ndjson") =>
      call(`/v1/datasets/${dataset.id}/import`, { method: "POST", headers: { ...who.headers, "Content-Type": type }, body });
    const bad = await jsonl('{"input":"ok"}\nnot json\n\n{"input":""}\n{"expected":"x"}\n');
    expect(bad.status).toBe(400);
    const paths = (await readProblem(bad)).errors?.map((e) => e.path);
    expect(paths).toEqual(["body.line.2", "body.line.4.input", "body.line.5.input"]);
    expect((await getJson<Dataset>(who, `/v1/datasets/${dataset.id}`)).item_count).toBe(0);
    // A body of garbage names its first problems, not one per line.
    const garbage = await jsonl("x\n".repeat(5_000));
    expect(garbage.status).toBe(400);
    const problem = await readProblem(garbage);
    expect(problem.errors).toHaveLength(50);
    expect(problem.errors?.[49]?.path).toBe("body.line.50");
    expect(problem.detail).toBe("5000 problems in the lines; errors names the first 50.");
    expect((await jsonl('{"input":"a"}', "text/plain")).status).toBe(415);
    const good = await jsonl('{"input":"What is 2+2?","expected":"4"}\n{"input":"What is 3+3?","expected":"6","metadata":{"k":1}}\n');
    expect(((await good.json()) as Dataset).item_count).toBe(2);
  });

  it("adds a session's first input and final answer as an item", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("Paris.")] } });
    const session = await createSession(who, { model: model.key, input: "Capital of France?" });
    await waitForStatus(who, session.id, ["done"]);
    const dataset = await createDataset(who, { name: "from-sessions", items: [] });
    const res = await callJson(`/v1/datasets/${dataset.id}/items/from-session`, "POST", { session_id: session.id }, who.headers);
    expect(res.status).toBe(200);
    const read = await getJson<{ items: unknown[] }>(who, `/v1/datasets/${dataset.id}`);
    expect(read.items).toEqual([{ input: "Capital of France?", expected: "Paris.", metadata: { session_id: session.id } }]);
    // Another caller's session is not found, as on every session route.
    const other = await caller(who.tenantId, ["sessions:read", "agents:write"], "user-2");
    expect(
      (await callJson(`/v1/datasets/${dataset.id}/items/from-session`, "POST", { session_id: session.id }, other.headers)).status,
    ).toBe(404);
  });

  it("keeps each tenant's datasets its own", async () => {
    const [a, b] = [await author(), await author()];
    const dataset = await createDataset(a, { name: "mine", items: [{ input: "x" }] });
    expect((await call(`/v1/datasets/${dataset.id}`, { headers: b.headers })).status).toBe(404);
    expect((await getJson<{ data: unknown[] }>(b, "/v1/datasets")).data).toEqual([]);
  });
});
