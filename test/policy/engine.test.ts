/** The Cedar engine in workerd: validation against the schema, the limits, and the decisions it makes. */
import { describe, expect, it } from "vitest";
import { loadCedar } from "../../src/policy/load";
import { principalOf } from "../../src/policy/request";
import { MAX_POLICY_BYTES, MAX_POLICY_STATEMENTS, type PolicyRequest } from "../../src/policy/schema";

const call = (over: Partial<PolicyRequest> = {}): PolicyRequest => ({
  principal: principalOf("end_user:alice", "k1"),
  tool: { name: "send", type: "webhook", trust: "trusted" },
  input: { to: "bob@example.com", count: 2 },
  tainted: false,
  agent: { id: "agt_1", version: 3 },
  session_metadata: { team: "blue" },
  ...over,
});

describe("checkPolicy", () => {
  it("accepts a policy that uses every part of the schema", async () => {
    const { checkPolicy } = await loadCedar();
    const text = `@id("no-bob") forbid(principal, action == Action::"call_tool", resource == Tool::"send")
      when { principal.kind == "end_user" && principal.subject == "bob" && context.input.hasTag("to") && context.input.getTag("to") like "*@evil.com" };
      @require_approval @id("held") permit(principal, action, resource) when { context.tainted && resource.type == "webhook" && resource.trust == "trusted" && context.session_metadata.hasTag("team") && context has agent_id };`;
    expect(checkPolicy(text)).toEqual({ ok: true, statements: 2 });
  });

  it("answers the validator's messages for an attribute the schema does not have, and the parser's for bad syntax", async () => {
    const { checkPolicy } = await loadCedar();
    const unknown = checkPolicy("permit(principal, action, resource) when { context.nope };");
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.errors.join()).toMatch(/nope/);
    const syntax = checkPolicy("permit(principal, action, resource) when { ");
    expect(syntax.ok).toBe(false);
    expect(!syntax.ok && syntax.errors.join()).toMatch(/unexpected end of input/);
  });

  it("refuses more statements than the limit, templates, repeated ids and @require_approval on a forbid", async () => {
    const { checkPolicy } = await loadCedar();
    const many = "forbid(principal,action,resource);\n".repeat(MAX_POLICY_STATEMENTS + 1);
    expect(checkPolicy(many)).toEqual({ ok: false, errors: [expect.stringMatching(/at most 1000 statements/)] });
    const large = `// ${"x".repeat(MAX_POLICY_BYTES)}\npermit(principal, action, resource);`;
    expect(checkPolicy(large)).toEqual({ ok: false, errors: [expect.stringMatching(/at most 65536 bytes/)] });
    expect(checkPolicy("permit(principal == ?principal, action, resource);").ok).toBe(false);
    expect(checkPolicy('@id("a") permit(principal, action, resource); @id("a") forbid(principal, action, resource);').ok).toBe(false);
    expect(checkPolicy("@require_approval forbid(principal, action, resource);").ok).toBe(false);
  });
});

describe("judge", () => {
  it("allows every call without a policy, as before policies existed", async () => {
    const { judge } = await loadCedar();
    expect(judge({ tenant: null, agent: null }, call())).toEqual({ decision: "allow", policy_ids: [], errors: [] });
  });

  it("denies a call a forbid of either policy matches, naming it, and allows another principal's", async () => {
    const { judge } = await loadCedar();
    const tenant = '@id("no-alice") forbid(principal == User::"end_user:alice", action, resource == Tool::"send");';
    const agent =
      '@id("no-evil") forbid(principal, action, resource) when { context.input.hasTag("to") && context.input.getTag("to") like "*@evil.com" };';
    expect(judge({ tenant, agent }, call()).decision).toBe("deny");
    expect(judge({ tenant, agent }, call()).policy_ids).toEqual(["tenant.no-alice"]);
    const bob = call({ principal: principalOf("end_user:bob", null) });
    expect(judge({ tenant, agent }, bob)).toEqual({ decision: "allow", policy_ids: [], errors: [] });
    expect(judge({ tenant, agent }, { ...bob, input: { to: "x@evil.com" } }).policy_ids).toEqual(["agent.no-evil"]);
  });

  it("holds a call a @require_approval permit matches, only once the run is tainted", async () => {
    const { judge } = await loadCedar();
    const tenant =
      '@id("taint") @require_approval permit(principal, action, resource) when { context.tainted && resource.type == "webhook" };';
    expect(judge({ tenant, agent: null }, call()).decision).toBe("allow");
    expect(judge({ tenant, agent: null }, call({ tainted: true }))).toEqual({
      decision: "require_approval",
      policy_ids: ["tenant.taint"],
      errors: [],
    });
  });

  it("denies when a forbid cannot be evaluated: an error must not open what it closes", async () => {
    const { judge } = await loadCedar();
    // getTag of a tag the input lacks is an evaluation error.
    const tenant = '@id("strict") forbid(principal, action, resource) when { context.input.getTag("url") like "*evil*" };';
    const decision = judge({ tenant, agent: null }, call());
    expect(decision.decision).toBe("deny");
    expect(decision.policy_ids).toEqual(["tenant.strict"]);
    expect(decision.errors.join()).toMatch(/tenant.strict/);
  });

  it("holds when a @require_approval permit cannot be evaluated: the default permit must not run the call", async () => {
    const { judge } = await loadCedar();
    const tenant =
      '@id("ask-evil") @require_approval permit(principal, action, resource) when { context.input.getTag("url") like "*evil*" };';
    const decision = judge({ tenant, agent: null }, call());
    expect(decision).toMatchObject({ decision: "require_approval", policy_ids: ["tenant.ask-evil"] });
    expect(decision.errors.join()).toMatch(/tenant.ask-evil/);
  });

  it("the documented taint template (docs/policy.md) holds every tool once tainted but the read-only list", async () => {
    const { checkPolicy, judge } = await loadCedar();
    const tenant =
      '@id("hold-after-untrusted-content") @require_approval permit (principal, action == Action::"call_tool", resource) when { context.tainted && !(resource in [Tool::"get_time"]) };';
    expect(checkPolicy(tenant)).toEqual({ ok: true, statements: 1 });
    for (const tool of [
      { name: "http_fetch", type: "builtin", trust: "untrusted" },
      { name: "search", type: "mcp", trust: "untrusted" },
      { name: "peer", type: "a2a", trust: "untrusted" },
      { name: "helper", type: "agent", trust: "untrusted" },
      { name: "send", type: "webhook", trust: "trusted" },
    ] as const)
      expect(judge({ tenant, agent: null }, call({ tool, tainted: true })).decision).toBe("require_approval");
    const readOnly = call({ tool: { name: "get_time", type: "builtin", trust: "trusted" }, tainted: true });
    expect(judge({ tenant, agent: null }, readOnly).decision).toBe("allow");
  });
});
