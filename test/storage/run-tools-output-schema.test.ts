/**
 * Session-object migration 17 on storage version 16 wrote: `run_tools` gains `output_schema`; a
 * tool saved before it reads back without one (its results go unchecked until the next run lists
 * the tools again), and one saved with it reads back with its schema.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../src/objects";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { SessionStore } from "../../src/sessions/object/store/store";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { migrateSessionTo } from "../support/legacy-storage";

const BEFORE = 16;

/** `run_tools` as migration 14 left a used one, through version 16. */
const RUN_TOOLS_V14 = `CREATE TABLE run_tools (
  name TEXT PRIMARY KEY,
  position INTEGER NOT NULL,
  server TEXT NOT NULL,
  remote_name TEXT NOT NULL,
  description TEXT NOT NULL,
  input_schema TEXT NOT NULL,
  at_most_once INTEGER NOT NULL
)`;

describe(`session storage at version ${BEFORE}`, () => {
  it("keeps its run's MCP tools, without an output schema, and takes one for a tool saved after", async () => {
    await runInDurableObject(sessionStub(env, "t-run-tools", "ses_v16"), (_i, state) => {
      const sql = state.storage.sql;
      migrateSessionTo(state.storage, BEFORE);
      sql.exec(RUN_TOOLS_V14);
      sql.exec(
        "INSERT INTO run_tools (name, position, server, remote_name, description, input_schema, at_most_once) VALUES ('docs__echo', 0, 'docs', 'echo', 'Echoes.', '{\"type\":\"object\"}', 0)",
      );
      migrate(state.storage, SESSION_MIGRATIONS);
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      const schema = { type: "object", properties: { temp: { type: "number" } } };
      sql.exec(
        "INSERT INTO run_tools (name, position, server, remote_name, description, input_schema, at_most_once, output_schema) VALUES ('docs__weather', 1, 'docs', 'weather', 'Weather.', '{\"type\":\"object\"}', 0, ?)",
        JSON.stringify(schema),
      );
      const tools = new SessionStore(state.storage).runTools();
      expect(tools).toEqual([
        {
          name: "docs__echo",
          server: "docs",
          remote_name: "echo",
          description: "Echoes.",
          input_schema: { type: "object" },
          at_most_once: false,
        },
        {
          name: "docs__weather",
          server: "docs",
          remote_name: "weather",
          description: "Weather.",
          input_schema: { type: "object" },
          output_schema: schema,
          at_most_once: false,
        },
      ]);
    });
  });

  it("without the on-demand table is brought to the newest version without making it", async () => {
    await runInDurableObject(sessionStub(env, "t-run-tools", "ses_v16_bare"), (_i, state) => {
      migrateSessionTo(state.storage, BEFORE);
      migrate(state.storage, SESSION_MIGRATIONS);
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      expect(state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'run_tools'").toArray()).toEqual([]);
    });
  });
});
