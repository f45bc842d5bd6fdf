/**
 * The `run_tools` table and its `run_tools` key: what the MCP servers offered when the current
 * run started, fixed for the whole run; the key is present once they are saved.
 */
import type { KvStretchCache } from "../engine/kv-stretch";
import type { DiscoveredTool } from "../tools/mcp/plan";

const RUN_TOOLS_KEY = "run_tools";

export function runToolsDiscovered(kv: KvStretchCache): boolean {
  return kv.get(RUN_TOOLS_KEY) !== undefined;
}

export function runTools(sql: SqlStorage): DiscoveredTool[] {
  return sql
    .exec("SELECT * FROM run_tools ORDER BY position")
    .toArray()
    .map((row) => ({
      name: String(row.name),
      server: String(row.server),
      remote_name: String(row.remote_name),
      description: String(row.description),
      input_schema: JSON.parse(String(row.input_schema)) as Record<string, unknown>,
      // Null in rows without one, and in rows saved before migration 17: such a run checks no result.
      ...(typeof row.output_schema === "string" ? { output_schema: JSON.parse(row.output_schema) as Record<string, unknown> } : {}),
      at_most_once: row.at_most_once === 1,
    }));
}

export function saveRunTools(sql: SqlStorage, kv: KvStretchCache, tools: readonly DiscoveredTool[], now: string): void {
  sql.exec("DELETE FROM run_tools");
  tools.forEach((tool, position) => {
    sql.exec(
      "INSERT INTO run_tools (name, position, server, remote_name, description, input_schema, at_most_once, output_schema) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      tool.name,
      position,
      tool.server,
      tool.remote_name,
      tool.description,
      JSON.stringify(tool.input_schema),
      tool.at_most_once ? 1 : 0,
      tool.output_schema === undefined ? null : JSON.stringify(tool.output_schema),
    );
  });
  kv.put(RUN_TOOLS_KEY, { discovered_at: now });
}

/** `sql` null: the table was never made, so it holds nothing to clear. */
export function clearRunTools(sql: SqlStorage | null, kv: KvStretchCache): void {
  sql?.exec("DELETE FROM run_tools");
  kv.delete(RUN_TOOLS_KEY);
}
