/**
 * Session-object migration 19 on storage version 18 wrote: the `a2a_tasks` map becomes one
 * `a2a_task:<tool_call_id>` key per call, which the store then reads.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../src/objects";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { SessionStore } from "../../src/sessions/object/store/store";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { migrateSessionTo } from "../support/legacy-storage";

const BEFORE = 18;

describe(`session storage at version ${BEFORE}`, () => {
  it("splits the waiting a2a calls' remote tasks into a key each", async () => {
    await runInDurableObject(sessionStub(env, "t-a2a-keys", "ses_v18"), (_i, state) => {
      migrateSessionTo(state.storage, BEFORE);
      const task = (id: string) => ({ endpoint: "https://agent.example.com/rpc", task_id: id, context_id: "ctx", turns: 1 });
      state.storage.kv.put("a2a_tasks", { toolu_a: task("ta"), toolu_b: { ...task("tb"), answer: "Paris" } });
      migrate(state.storage, SESSION_MIGRATIONS);
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      expect(state.storage.kv.get("a2a_tasks")).toBeUndefined();
      const store = new SessionStore(state.storage);
      expect(store.remoteTask("toolu_a")).toEqual(task("ta"));
      expect(store.remoteTask("toolu_b")).toEqual({ ...task("tb"), answer: "Paris" });
    });
  });
});
