/**
 * The Cedar schema every tool policy is validated against, and the named limits of a policy.
 * Published as is (`GET /v1/tenant/policy/schema`, docs/policy.md) so tenants validate locally.
 */

export { MAX_POLICY_BYTES, MAX_POLICY_STATEMENTS } from "../session-config/policy-spec";

/**
 * `input` and `session_metadata` are entities with string tags: a tool's input has no one shape,
 * and Cedar validates closed records only (its open records are experimental). Each top-level
 * field of the input is a tag: a string as is, any other value as its JSON text.
 */
export const CEDAR_SCHEMA = `// Tool policy schema, version 1.
// The principal: the subject that created the session (its created_by).
entity User = {
  // "user" (a JWT's subject), "api_key", "end_user" or "platform"
  kind: String,
  // created_by without its prefix: the JWT's sub, the key's id, the end user's subject
  subject: String,
  // the API key that created the session, or that minted the end user's token
  key_id?: String,
};
// The tool the model asked to call.
entity Tool = {
  name: String,
  // "builtin", "webhook", "client", "mcp", "agent" or "a2a"
  type: String,
  // "trusted" or "untrusted"
  trust: String,
};
// The call's input: one tag per top-level field (strings as is, other values as JSON text).
entity Input tags String;
// The session's metadata: one tag per key.
entity Metadata tags String;
action call_tool appliesTo {
  principal: [User],
  resource: [Tool],
  context: {
    input: Input,
    // the agent and version the session was created from, when it was
    agent_id?: String,
    agent_version?: Long,
    // true once the run has read the result of an untrusted tool
    tainted: Bool,
    session_metadata: Metadata,
  },
};
`;

export type PrincipalKind = "user" | "api_key" | "end_user" | "platform";
export const PRINCIPAL_KINDS = ["user", "api_key", "end_user", "platform"] as const;

export type ToolTrust = "trusted" | "untrusted";
export const TOOL_TRUSTS = ["trusted", "untrusted"] as const;

/** The platform's answer for one call: what the loop does with it. */
export type PolicyEffect = "allow" | "deny" | "require_approval";

/** What a call is judged on. */
export interface PolicyRequest {
  principal: { id: string; kind: PrincipalKind; subject: string; key_id?: string };
  tool: { name: string; type: string; trust: ToolTrust };
  input: unknown;
  tainted: boolean;
  agent?: { id: string; version: number } | null;
  session_metadata?: Record<string, string> | null;
}

/** A decision: the effect, the policies that made it (prefixed `tenant.` or `agent.`), and evaluation errors. */
export interface PolicyDecision {
  decision: PolicyEffect;
  policy_ids: string[];
  errors: string[];
}
