/** The controls a session's parent and children call on it: a child's report, and the report a parent is owed. */
import { reportForParent } from "../subagents/child";
import { applyChildReport } from "../subagents/parent";
import { pushFamilyShares, type ShareHost } from "../subagents/share-push";
import { type ChildReport, parseChildReport } from "../subagents/report";
import type { SessionResult } from "../../../session-config/types";
import { takeInTree, type TreeAnswer } from "../subagents/tree";
import type { SessionStore } from "../store/store";

/** A child's report (subagents/report.ts): recorded once per revision; at the child's end, its call's result. */
export async function childReport(host: ShareHost, report: ChildReport): Promise<SessionResult<null>> {
  const parsed = parseChildReport(report);
  if (!parsed) return { ok: false, reason: "invalid", detail: "not a child report" };
  const applied = await applyChildReport(host, parsed);
  // A child that ended leaves its unused share to the others still open.
  if (parsed.result && host.store.subagent(parsed.tool_call_id)?.session_id === parsed.session_id) await pushFamilyShares(host);
  return applied;
}

/** This session's state as the report its parent is owed (asked by the parent's own look at its children). */
export function parentReport(host: Parameters<typeof reportForParent>[0]): SessionResult<ChildReport> {
  const report = reportForParent(host);
  return report ? { ok: true, value: report } : { ok: false, reason: "invalid", detail: "this session has no parent" };
}

/** A session of this root's tree asks for a place for a child or a model call (subagents/tree.ts). */
export function treeTake(host: { store: SessionStore }, ask: unknown): Promise<SessionResult<TreeAnswer>> {
  return Promise.resolve(takeInTree(host.store, ask));
}
