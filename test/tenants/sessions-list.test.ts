import { describe, expect, it } from "vitest";
import type { SessionStatus, SessionSummary } from "../../src/session-config/types";
import { encodeTimeIdCursor } from "../../src/shared/cursor";
import { BASE_MS, expectIndexRejects, freshTenant, indexOf, report } from "./helpers";

const STATUSES: SessionStatus[] = ["idle", "running", "done", "failed", "paused"];
const CREATORS = ["alice", "bob", "carol"];

interface Seeded {
  id: string;
  created_by: string;
  status: SessionStatus;
  createdMs: number;
}

/** 500 sessions; three share each timestamp so ties are broken by id. */
async function seed(tenantId: string, count = 500): Promise<Seeded[]> {
  const index = indexOf(tenantId);
  const seeded: Seeded[] = [];
  for (let i = 0; i < count; i++) {
    const row: Seeded = {
      id: `ses_${String((i * 7919) % 1000).padStart(4, "0")}_${i}`,
      created_by: CREATORS[i % CREATORS.length] as string,
      status: STATUSES[i % STATUSES.length] as SessionStatus,
      createdMs: BASE_MS + Math.floor(i / 3) * 1000,
    };
    seeded.push(row);
  }
  for (let i = 0; i < seeded.length; i += 50) {
    await Promise.all(seeded.slice(i, i + 50).map((s) => index.reportSession(tenantId, report(s.id, s))));
  }
  return seeded;
}

function newestFirst(rows: Seeded[]): string[] {
  return [...rows].sort((a, b) => b.createdMs - a.createdMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((row) => row.id);
}

async function collect(
  tenantId: string,
  filter: { status?: SessionStatus; created_by?: string },
  limit: number,
  betweenPages?: (page: number) => Promise<void>,
): Promise<SessionSummary[]> {
  const index = indexOf(tenantId);
  const all: SessionSummary[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const result: { data: SessionSummary[]; next_cursor: string | null } = await index.listSessions(tenantId, { ...filter, limit, cursor });
    expect(result.data.length).toBeLessThanOrEqual(limit);
    all.push(...result.data);
    if (!result.next_cursor) return all;
    cursor = result.next_cursor;
    await betweenPages?.(page);
  }
  throw new Error("pagination did not end");
}

describe("listSessions", () => {
  it("returns 500 sessions page by page, each exactly once, newest first", async () => {
    const tenantId = freshTenant();
    const seeded = await seed(tenantId);
    const listed = await collect(tenantId, {}, 37);
    expect(listed.map((s) => s.id)).toEqual(newestFirst(seeded));
    expect(new Set(listed.map((s) => s.id)).size).toBe(500);
  });

  it("keeps each row exactly once while new sessions are created between pages", async () => {
    const tenantId = freshTenant();
    const seeded = await seed(tenantId);
    const index = indexOf(tenantId);
    const listed = await collect(tenantId, {}, 50, async (page) => {
      await index.reportSession(tenantId, report(`ses_new_${page}`, { createdMs: BASE_MS + 10_000_000 + page }));
      // A session sharing the newest seeded timestamp sorts ahead of the cursor too.
      await index.reportSession(tenantId, report(`ses_zzz_${page}`, { createdMs: BASE_MS + 166 * 1000 }));
    });
    expect(listed.map((s) => s.id)).toEqual(newestFirst(seeded));
    const fresh = await index.listSessions(tenantId, { limit: 200 });
    expect(fresh.data.filter((s) => s.id.startsWith("ses_new_"))).toHaveLength(9);
  });

  it("filters by status, by creator and by both", async () => {
    const tenantId = freshTenant();
    const seeded = await seed(tenantId);
    const byStatus = await collect(tenantId, { status: "done" }, 23);
    expect(byStatus.map((s) => s.id)).toEqual(newestFirst(seeded.filter((s) => s.status === "done")));
    expect(byStatus.every((s) => s.status === "done")).toBe(true);

    const byCreator = await collect(tenantId, { created_by: "bob" }, 41);
    expect(byCreator.map((s) => s.id)).toEqual(newestFirst(seeded.filter((s) => s.created_by === "bob")));

    const both = await collect(tenantId, { status: "running", created_by: "carol" }, 7);
    const expected = newestFirst(seeded.filter((s) => s.status === "running" && s.created_by === "carol"));
    expect(expected.length).toBeGreaterThan(0);
    expect(both.map((s) => s.id)).toEqual(expected);
  });

  it("returns the summary shape with ISO times and a null cursor on the last page", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(
      tenantId,
      report("ses_a", {
        status: "done",
        stop_reason: "end_turn",
        usage: { steps: 2, input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 },
      }),
    );
    const page = await index.listSessions(tenantId, { limit: 10 });
    expect(page).toEqual({
      data: [
        {
          id: "ses_a",
          agent: null,
          parent_session_id: null,
          title: null,
          created_by: "user-1",
          status: "done",
          stop_reason: "end_turn",
          usage: { steps: 2, input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 },
          created_at: new Date(BASE_MS).toISOString(),
          updated_at: new Date(BASE_MS).toISOString(),
        },
      ],
      next_cursor: null,
    });
  });

  it("refuses limits outside 1..200 and cursors it did not make", async () => {
    const tenantId = freshTenant();
    await expectIndexRejects(tenantId, (index) => index.listSessions(tenantId, { limit: 0 }), /limit/);
    await expectIndexRejects(tenantId, (index) => index.listSessions(tenantId, { limit: 201 }), /limit/);
    await expectIndexRejects(tenantId, (index) => index.listSessions(tenantId, { limit: 10, cursor: "not a cursor!" }), /cursor/);
    await expectIndexRejects(tenantId, (index) => index.listSessions(tenantId, { limit: 10, cursor: btoa("[1]") }), /cursor/);
    const made = encodeTimeIdCursor("sessions", BASE_MS, "ses_x");
    await expect(indexOf(tenantId).listSessions(tenantId, { limit: 10, cursor: made })).resolves.toEqual({ data: [], next_cursor: null });
  });

  it("refuses an unknown status filter", async () => {
    const tenantId = freshTenant();
    await expectIndexRejects(
      tenantId,
      (index) => index.listSessions(tenantId, { limit: 10, status: "sleeping" as SessionStatus }),
      /status/,
    );
  });
});
