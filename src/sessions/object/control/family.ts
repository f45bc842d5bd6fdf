/** The controls a session's parent and children call on it: a child's report, and the report a parent is owed. */
import { reportForParent } from "../subagents/child";
import { applyChildReport } from "../subagents/parent";
import { type ChildReport, parseChildReport } from "../subagents/report";
import type { SessionResult } from "../../../session-config/types";
import { takeInTree, type TreeAnswer } from "../subagents/tree";
import type { SessionStore } from "../store/store";

/** A child's report (subagents/report.ts): recorded once per revision; at the child's end, its call's result. */
export function childReport(host: Parameters<typeof applyChildReport>[0], report: ChildReport): Promise<SessionResult<null>> {
  const parsed = parseChildReport(report);
  if (!parsed) return Promise.resolve({ ok: false, reason: "invalid", detail: "not a child report" });
  return applyChildReport(host, parsed);
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
