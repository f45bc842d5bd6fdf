/**
 * Session-object migration 18 on storage version 17 wrote: `tool_calls` gains `policy`; a call
 * saved before it reads back with none, and one saved after with the decision it was given.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../src/objects";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { SessionStore } from "../../src/sessions/object/store/store";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { migrateSessionTo } from "../support/legacy-storage";

const BEFORE = 17;

describe(`session storage at version ${BEFORE}`, () => {
  it("keeps its tool calls, without a policy decision, and stores one for a call saved after", async () => {
    await runInDurableObject(sessionStub(env, "t-call-policy", "ses_v17"), (_i, state) => {
      const sql = state.storage.sql;
      migrateSessionTo(state.storage, BEFORE);
      sql.exec(
        "INSERT INTO tool_calls (message_seq, position, id, step, name, input, status, created_at) VALUES (1, 0, 'toolu_old', 1, 'get_time', '{}', 'pending', '2026-01-01T00:00:00.000Z')",
      );
      migrate(state.storage, SESSION_MIGRATIONS);
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      const store = new SessionStore(state.storage);
      expect(store.toolCall("toolu_old")).toMatchObject({ id: "toolu_old", status: "pending", policy: null });
      const policy = { decision: "deny" as const, policy_ids: ["tenant.no-alice"] };
      store.insertToolCall({
        id: "toolu_new",
        step: 2,
        messageSeq: 2,
        position: 0,
        name: "send",
        input: {},
        status: "pending",
        now: "x",
        policy,
      });
      expect(store.toolCall("toolu_new")?.policy).toEqual(policy);
    });
  });
});
