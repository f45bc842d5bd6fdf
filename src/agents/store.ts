/**
 * The agent store's tables (storage.md): one row per agent, one per immutable version, one per
 * alias. Functions of the SQL handle; the object wraps each change in a transaction.
 */
import { decodeKeyCursor, decodeTimeIdCursor, encodeKeyCursor, encodeTimeIdCursor } from "../shared/cursor";
import type { Page } from "../session-config/types";
import { toIso } from "../shared/validate";
import type { Agent, AgentDefinition, AgentVersion } from "./types";
import { canariesOf } from "./canary-store";

export interface AgentRow extends Record<string, SqlStorageValue> {
  id: string;
  name: string;
  latest_version: number;
  archived_at: number | null;
  created_by: string;
  created_at: number;
  updated_at: number;
}

interface VersionRow extends Record<string, SqlStorageValue> {
  agent_id: string;
  version: number;
  definition: string;
  created_by: string;
  created_at: number;
}

export function getAgent(sql: SqlStorage, id: string): AgentRow | null {
  return sql.exec<AgentRow>(`SELECT * FROM agents WHERE id = ?`, id).toArray()[0] ?? null;
}

/** The live agent holding `name`, if any. */
export function liveAgentNamed(sql: SqlStorage, name: string): string | null {
  return sql.exec<{ id: string }>(`SELECT id FROM agents WHERE name = ? AND archived_at IS NULL`, name).toArray()[0]?.id ?? null;
}

export function countAgents(sql: SqlStorage): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM agents`).one().n;
}

export function insertAgent(sql: SqlStorage, row: AgentRow): void {
  sql.exec(
    `INSERT INTO agents (id, name, latest_version, archived_at, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    row.id,
    row.name,
    row.latest_version,
    row.archived_at,
    row.created_by,
    row.created_at,
    row.updated_at,
  );
}

export function insertVersion(
  sql: SqlStorage,
  agentId: string,
  version: number,
  definition: AgentDefinition,
  createdBy: string,
  now: number,
): void {
  sql.exec(
    `INSERT INTO agent_versions (agent_id, version, definition, created_by, created_at) VALUES (?, ?, ?, ?, ?)`,
    agentId,
    version,
    JSON.stringify(definition),
    createdBy,
    now,
  );
}

/** The agent's row after a new version: its name follows the latest definition. */
export function advanceAgent(sql: SqlStorage, id: string, version: number, name: string, now: number): void {
  sql.exec(`UPDATE agents SET latest_version = ?, name = ?, updated_at = ? WHERE id = ?`, version, name, now, id);
}

/** True when this call archived it (false: it was archived already). */
export function archiveAgent(sql: SqlStorage, id: string, now: number): boolean {
  return sql.exec(`UPDATE agents SET archived_at = ?, updated_at = ? WHERE id = ? AND archived_at IS NULL`, now, now, id).rowsWritten > 0;
}

export function touchAgent(sql: SqlStorage, id: string, now: number): void {
  sql.exec(`UPDATE agents SET updated_at = ? WHERE id = ?`, now, id);
}

export function getVersionRow(sql: SqlStorage, agentId: string, version: number): VersionRow | null {
  return sql.exec<VersionRow>(`SELECT * FROM agent_versions WHERE agent_id = ? AND version = ?`, agentId, version).toArray()[0] ?? null;
}

export function countVersions(sql: SqlStorage, agentId: string): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM agent_versions WHERE agent_id = ?`, agentId).one().n;
}

export function aliasesOf(sql: SqlStorage, agentId: string): Record<string, number> {
  const aliases: Record<string, number> = {};
  for (const row of sql.exec<{ alias: string; version: number }>(
    `SELECT alias, version FROM agent_aliases WHERE agent_id = ? ORDER BY alias`,
    agentId,
  )) {
    aliases[row.alias] = row.version;
  }
  return aliases;
}

export function aliasVersion(sql: SqlStorage, agentId: string, alias: string): number | null {
  return (
    sql.exec<{ version: number }>(`SELECT version FROM agent_aliases WHERE agent_id = ? AND alias = ?`, agentId, alias).toArray()[0]
      ?.version ?? null
  );
}

export function countAliases(sql: SqlStorage, agentId: string): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM agent_aliases WHERE agent_id = ?`, agentId).one().n;
}

export function setAlias(sql: SqlStorage, agentId: string, alias: string, version: number, now: number): void {
  sql.exec(
    `INSERT INTO agent_aliases (agent_id, alias, version, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (agent_id, alias) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
    agentId,
    alias,
    version,
    now,
  );
}

export function deleteAlias(sql: SqlStorage, agentId: string, alias: string): boolean {
  return sql.exec(`DELETE FROM agent_aliases WHERE agent_id = ? AND alias = ?`, agentId, alias).rowsWritten > 0;
}

/** Newest first by (created_at, id); `name` narrows to one name (live or archived agents that held it). */
export function listAgents(
  sql: SqlStorage,
  filter: { name: string | null; includeArchived: boolean },
  limit: number,
  cursor: string | null,
): { rows: AgentRow[]; next_cursor: string | null } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (filter.name !== null) {
    where.push("name = ?");
    args.push(filter.name);
  }
  if (!filter.includeArchived) where.push("archived_at IS NULL");
  if (cursor !== null) {
    const after = decodeTimeIdCursor("agents", cursor);
    if (!after) throw new RangeError("invalid cursor");
    where.push("(created_at, id) < (?, ?)");
    args.push(after.ms, after.id);
  }
  const rows = sql
    .exec<AgentRow>(
      `SELECT * FROM agents ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, id DESC LIMIT ?`,
      ...args,
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, next_cursor: rows.length > limit && last ? encodeTimeIdCursor("agents", last.created_at, last.id) : null };
}

/** Newest first; the cursor is the last version returned. */
export function listVersions(sql: SqlStorage, agentId: string, limit: number, cursor: string | null): Page<AgentVersion> {
  let before = Number.MAX_SAFE_INTEGER;
  if (cursor !== null) {
    const key = decodeKeyCursor("agent_versions", cursor);
    if (key === null || !/^[0-9]{1,9}$/.test(key)) throw new RangeError("invalid cursor");
    before = Number(key);
  }
  const rows = sql
    .exec<VersionRow>(
      `SELECT * FROM agent_versions WHERE agent_id = ? AND version < ? ORDER BY version DESC LIMIT ?`,
      agentId,
      before,
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toVersion),
    next_cursor: rows.length > limit && last ? encodeKeyCursor("agent_versions", String(last.version)) : null,
  };
}

export function toVersion(row: VersionRow): AgentVersion {
  return {
    agent_id: row.agent_id,
    version: row.version,
    definition: JSON.parse(row.definition) as AgentDefinition,
    created_by: row.created_by,
    created_at: toIso(row.created_at),
  };
}

export function toAgent(sql: SqlStorage, row: AgentRow): Agent {
  const latest = getVersionRow(sql, row.id, row.latest_version);
  if (!latest) throw new Error("an agent's latest version is missing");
  const definition = JSON.parse(latest.definition) as AgentDefinition;
  return {
    id: row.id,
    name: row.name,
    description: typeof definition.description === "string" ? definition.description : null,
    version: row.latest_version,
    aliases: aliasesOf(sql, row.id),
    canaries: canariesOf(sql, row.id),
    definition,
    archived: row.archived_at !== null,
    created_by: row.created_by,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}
