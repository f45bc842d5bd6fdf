/**
 * Which tools' results taint a run: content the tenant does not control (a fetched page, an MCP
 * server's or another agent's answer) is untrusted, so a policy can hold side-effecting tools
 * once the model has read it (`context.tainted`).
 */
import type { ToolTrust } from "./schema";

/** The built-ins whose results come from outside: everything else built in is the platform's own. */
const UNTRUSTED_BUILTINS: ReadonlySet<string> = new Set(["http_fetch"]);

/** A tool's trust when its spec names none: the one rule, keyed by the tool's type (and a built-in's name). */
export function defaultTrust(type: string, name: string): ToolTrust {
  switch (type) {
    case "builtin":
      return UNTRUSTED_BUILTINS.has(name) ? "untrusted" : "trusted";
    case "mcp":
    case "agent":
    case "a2a":
      return "untrusted";
    // A webhook is the tenant's own service (its spec may say otherwise); a client tool's output is the caller's.
    default:
      return "trusted";
  }
}

/** Whether a call's result taints the run: its tool is untrusted and it ran (a denied call's error is the platform's text). */
export function resultTaints(
  tool: { kind: string; trust?: ToolTrust } | undefined,
  call: { name: string; policy?: { decision: string } | null },
): boolean {
  if (tool === undefined || call.policy?.decision === "deny") return false;
  return (tool.trust ?? defaultTrust(tool.kind, call.name)) === "untrusted";
}
