/**
 * Setting an alias, inside the store's transaction: the version it names, the canary it carries
 * (checked and counted by canary-ops.ts) and the audit entry when either moved.
 */
import type { CanarySpec } from "./canary";
import { applyCanary, type CanaryHost, canaryProblem } from "./canary-ops";
import * as store from "./store";
import { MAX_ALIASES_PER_AGENT } from "./store-input";
import type { AgentResult } from "./types";

export function writeAlias(
  host: CanaryHost,
  id: string,
  name: string,
  wanted: number,
  canary: CanarySpec | null,
  at: number,
): AgentResult<null> {
  const row = store.getAgent(host.sql, id);
  if (!row) return { ok: false, reason: "agent_not_found" };
  if (row.archived_at !== null) return { ok: false, reason: "archived" };
  if (!store.getVersionRow(host.sql, id, wanted)) return { ok: false, reason: "version_not_found", version: wanted };
  const refused = canaryProblem(host, id, wanted, canary);
  if (refused) return refused;
  const previous = store.aliasVersion(host.sql, id, name);
  if (previous === null && store.countAliases(host.sql, id) >= MAX_ALIASES_PER_AGENT) {
    return { ok: false, reason: "limit_reached", what: "aliases", max: MAX_ALIASES_PER_AGENT };
  }
  store.setAlias(host.sql, id, name, wanted, at);
  store.touchAgent(host.sql, id, at);
  const canaryChange = applyCanary(host, id, name, canary, at);
  // An alias set to the version (and canary) it already has has not moved.
  if (previous !== wanted || canaryChange.changed)
    host.record(
      {
        action: "agent.alias_set",
        target: { type: "agent", id },
        details: {
          alias: name,
          version: wanted,
          previous_version: previous,
          canary: canaryChange.canary,
          previous_canary_version: canaryChange.previous_canary_version,
        },
      },
      at,
    );
  return { ok: true, value: null };
}
