/**
 * A schedule whose session body names an agent by alias: the alias is resolved at each firing, so
 * moving `production` changes what the next firing runs; an archived agent's firings are recorded
 * as refused. In workerd, in real time, on a schedule that fires every second.
 */
import { describe, expect, it } from "vitest";
import { callJson, readProblem } from "../support/api";
import { mockModel, uniqueKey } from "../support/mock-client";
import { getJson, text } from "../api/sessions/helpers";
import { createSchedule, patch, waitForFirings } from "../api/schedules/helpers";
import { archive, author, createAgent, patchAgent, putAlias } from "../api/agents/helpers";
import type { Session } from "../../src/session-config/types";

const EVERY_SECOND = "* * * * * *";

describe("a schedule that names an agent", () => {
  it("follows its alias: firings after the alias moved run the version it names now", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("ok")] }, repeat: 20 });
    const agent = await createAgent(who, { name: "nightly", model: model.key, system: "one" });
    await patchAgent(who, agent.id, { system: "two" });
    await putAlias(who, agent.id, "production", 1);
    const schedule = await createSchedule(who, { cron: EVERY_SECOND, session: { agent: `${agent.id}@production`, input: "tick" } });

    const versionsOf = async (ids: string[]) =>
      Promise.all(ids.map(async (id) => (await getJson<Session>(who, `/v1/sessions/${id}`)).agent?.version));
    const before = await waitForFirings(who.headers, schedule.id, (f) => f.some((firing) => firing.outcome === "started"));
    const movedAt = Date.now();
    await putAlias(who, agent.id, "production", 2);
    const after = await waitForFirings(who.headers, schedule.id, (f) =>
      f.some((firing) => firing.outcome === "started" && Date.parse(firing.fired_at) > movedAt + 100),
    );
    await patch(who.headers, schedule.id, { paused: true });

    const started = (firings: typeof before) =>
      firings.filter((firing) => firing.outcome === "started").map((firing) => firing.session_id!);
    expect(await versionsOf(started(before))).toEqual(started(before).map(() => 1));
    const late = after
      .filter((firing) => firing.outcome === "started" && Date.parse(firing.fired_at) > movedAt + 100)
      .map((firing) => firing.session_id!);
    expect(await versionsOf(late)).toEqual(late.map(() => 2));
  }, 30_000);

  it("is refused at creation for an unknown or archived agent, and records refused firings once the agent is archived", async () => {
    const who = await author();
    const unknown = await callJson(
      "/v1/schedules",
      "POST",
      { cron: EVERY_SECOND, session: { agent: "agt_AAAAAAAAAAAAAAAAAAAAAAAA", input: "x" } },
      who.headers,
    );
    expect(unknown.status).toBe(404);
    const agent = await createAgent(who, { name: "doomed" });
    const schedule = await createSchedule(who, { cron: EVERY_SECOND, session: { agent: agent.id, input: "x" } });
    expect((await archive(who, agent.id)).status).toBe(204);
    const refused = await callJson("/v1/schedules", "POST", { cron: EVERY_SECOND, session: { agent: agent.id, input: "x" } }, who.headers);
    expect(refused.status).toBe(409);
    expect((await readProblem(refused)).code).toBe("conflict");
    const firings = await waitForFirings(who.headers, schedule.id, (f) => f.some((firing) => firing.outcome === "failed"));
    await patch(who.headers, schedule.id, { paused: true });
    expect(firings.find((firing) => firing.outcome === "failed")).toMatchObject({
      error_code: "conflict",
      error: expect.stringContaining("archived"),
    });
  }, 20_000);
});
