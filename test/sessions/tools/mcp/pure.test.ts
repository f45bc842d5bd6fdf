/** The pure parts of MCP tools: names, the run's tool plan (narrowing, annotations, limits), masking. */
import { describe, expect, it } from "vitest";
import { headerSecrets, MASKED_VALUE, maskMcpHeadersDeep, maskToolSpecs, serverMasker } from "../../../../src/session-config/masking";
import { isMcpServerName, offeredToolName } from "../../../../src/session-config/mcp-naming";
import { isRepeatable, type ListedTool, MAX_RUN_TOOLS, planRunTools } from "../../../../src/sessions/object/tools/mcp/plan";
import { checkToolSpecs, TOOL_NAME_PATTERN } from "../../../../src/sessions/object/tools/registry";
import { outputSchemaViolation } from "../../../../src/sessions/object/tools/mcp/outcome";
import type { McpToolSpec, ToolSpec } from "../../../../src/session-config/types";

const OBJECT = { type: "object", properties: {} };
const server = (name: string, extra: Partial<McpToolSpec> = {}): McpToolSpec => ({
  type: "mcp",
  name,
  url: "https://mcp.example.com/mcp",
  ...extra,
});
const listed = (name: string, extra: Partial<ListedTool> = {}): ListedTool => ({ name, inputSchema: OBJECT, ...extra });

describe("offered names", () => {
  it("offers a plain name as <server>__<tool>", () => {
    expect(offeredToolName("docs", "search", new Set())).toBe("docs__search");
  });

  it.each([
    ["a character outside the rule", "docs.search"],
    ["a space", "search docs"],
    ["a name longer than fits", "s".repeat(80)],
    ["an empty name", ""],
    ["a name of non-ASCII letters", "recherche_générale"],
  ])("maps %s to a valid name within 64 characters", (_what, remote) => {
    const name = offeredToolName("docs", remote, new Set())!;
    expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(name.startsWith("docs__")).toBe(true);
  });

  it("keeps names distinct that would clean up alike", () => {
    const a = offeredToolName("docs", "a.b", new Set())!;
    const b = offeredToolName("docs", "a_b", new Set([a]))!;
    const c = offeredToolName("docs", "a-b".padEnd(90, "x"), new Set([a, b]))!;
    const d = offeredToolName("docs", "a-b".padEnd(91, "x"), new Set([a, b, c]))!;
    expect(new Set([a, b, c, d]).size).toBe(4);
  });

  it("is stable: the same tool gets the same name in every run", () => {
    expect(offeredToolName("docs", "docs.search", new Set())).toBe(offeredToolName("docs", "docs.search", new Set()));
  });

  it.each([
    ["docs", true],
    ["my-docs_v2", true],
    ["a__b", false],
    ["docs_", false],
    ["_docs", false],
    ["x".repeat(33), false],
  ])("server name %s is allowed: %s", (name, allowed) => {
    expect(isMcpServerName(name)).toBe(allowed);
  });

  it("lets no two servers offer the same name: the first __ ends the server's name", () => {
    // "a" offering "b__c" and "a_b" (refused, would need "a__b" as a server) cannot meet.
    expect(offeredToolName("a", "b__c", new Set())).toBe("a__b__c");
    expect(isMcpServerName("a__b")).toBe(false);
  });
});

describe("the session's tool list", () => {
  it("refuses a declared tool that takes a server's prefix", () => {
    const tools: ToolSpec[] = [server("docs"), { type: "client", name: "docs__search", description: "d", input_schema: OBJECT }];
    expect(checkToolSpecs(tools)).toContain('starts with "docs__"');
  });

  it("refuses a server name outside its rule", () => {
    expect(checkToolSpecs([server("docs__v2")])).toContain("MCP server's name");
  });
});

describe("the run's tools", () => {
  it("offers every listed tool with its description and schema, at-most-once unless the annotations say otherwise", () => {
    const plan = planRunTools(
      [server("docs")],
      new Map([
        [
          "docs",
          [
            listed("read", { description: "Reads", annotations: { readOnlyHint: true } }),
            listed("sync", { annotations: { idempotentHint: true } }),
            listed("charge", { annotations: { readOnlyHint: false, idempotentHint: false } }),
            listed("plain"),
          ],
        ],
      ]),
    );
    expect(plan).toEqual({
      ok: true,
      tools: [
        { name: "docs__read", server: "docs", remote_name: "read", description: "Reads", input_schema: OBJECT, at_most_once: false },
        {
          name: "docs__sync",
          server: "docs",
          remote_name: "sync",
          description: "The tool sync of the MCP server docs.",
          input_schema: OBJECT,
          at_most_once: false,
        },
        expect.objectContaining({ name: "docs__charge", at_most_once: true }),
        expect.objectContaining({ name: "docs__plain", at_most_once: true }),
      ],
      unchecked: [],
    });
  });

  it.each([
    [undefined, false],
    [{}, false],
    [{ readOnlyHint: true }, true],
    [{ idempotentHint: true }, true],
    [{ readOnlyHint: false, idempotentHint: false }, false],
  ])("annotations %j make a repeat harmless: %s", (annotations, repeatable) => {
    expect(isRepeatable(annotations)).toBe(repeatable);
  });

  it("narrows to allowed_tools, ignoring names the server does not offer", () => {
    const plan = planRunTools(
      [server("docs", { allowed_tools: ["b", "missing"] })],
      new Map([["docs", [listed("a"), listed("b"), listed("c")]]]),
    );
    expect(plan.ok && plan.tools.map((tool) => tool.remote_name)).toEqual(["b"]);
  });

  it("leaves out tools that must run as tasks, and a name listed twice", () => {
    const plan = planRunTools(
      [server("docs")],
      new Map([["docs", [listed("a"), listed("a"), listed("t", { execution: { taskSupport: "required" } })]]]),
    );
    expect(plan.ok && plan.tools.map((tool) => tool.name)).toEqual(["docs__a"]);
  });

  it("refuses more tools than a run can offer, saying how to narrow them", () => {
    const many = Array.from({ length: MAX_RUN_TOOLS + 1 }, (_, i) => listed(`t${i}`));
    const plan = planRunTools([server("big")], new Map([["big", many]]));
    expect(plan).toEqual({ ok: false, problem: expect.stringContaining("allowed_tools") });
  });

  it("refuses a schema whose pattern cannot run in linear time, naming the tool", () => {
    const schema = { type: "object", properties: { q: { type: "string", pattern: "^(a)\\1$" } } };
    const plan = planRunTools([server("docs")], new Map([["docs", [listed("bad", { inputSchema: schema })]]]));
    expect(plan).toEqual({ ok: false, problem: expect.stringContaining('MCP server "docs", tool "bad"') });
  });

  it("refuses a schema that is not an object schema", () => {
    const plan = planRunTools([server("docs")], new Map([["docs", [listed("bad", { inputSchema: { type: "string" } })]]]));
    expect(plan.ok).toBe(false);
  });

  it("keeps a tool's output schema for the checks of its results, and leaves out one it could not check with", () => {
    const outputSchema = { type: "object", properties: { temp: { type: "number" } } };
    const kept = planRunTools([server("docs")], new Map([["docs", [listed("weather", { outputSchema })]]]));
    expect(kept).toMatchObject({ ok: true, tools: [{ remote_name: "weather", output_schema: outputSchema }] });
    const none = planRunTools([server("docs")], new Map([["docs", [listed("echo")]]]));
    expect(none.ok && "output_schema" in none.tools[0]!).toBe(false);
    const bad = { type: "object", properties: { q: { type: "string", pattern: "^(a)\\1$" } } };
    // The tool is still offered, its results unchecked: the schema only checks them.
    const unusable = planRunTools([server("docs")], new Map([["docs", [listed("bad", { outputSchema: bad }), listed("echo")]]]));
    expect(unusable).toMatchObject({
      ok: true,
      tools: [{ remote_name: "bad" }, { remote_name: "echo" }],
      unchecked: [expect.stringMatching(/^MCP server "docs", tool "bad": its output schema cannot be used/)],
    });
    expect(unusable.ok && "output_schema" in unusable.tools[0]!).toBe(false);
  });

  it("passes on unchecked a structured result too large to check against its output schema, and still refuses a wrong one", () => {
    // 900 subschemas per element is allowed; 100,000 elements of it is more work than a check may take.
    const branches = Array.from({ length: 899 }, (_, i) => ({ type: "number", minimum: -i }));
    const schema = { type: "object", properties: { items: { type: "array", items: { allOf: branches } } } };
    const big = { content: [], structuredContent: { items: Array(100_000).fill(1) } };
    expect(outputSchemaViolation(big, schema)).toBeNull();
    const wrong = { content: [], structuredContent: { items: ["x"] } };
    expect(outputSchemaViolation(wrong, schema)).toMatch(/does not match the tool's outputSchema/);
  });
});

describe("masking", () => {
  const spec = server("docs", { headers: { Authorization: "Bearer sk-live-123456", "X-Team": "blue-team" } });

  it("shows header names with masked values", () => {
    expect(maskToolSpecs([spec])[0]).toEqual({ ...spec, headers: { Authorization: MASKED_VALUE, "X-Team": MASKED_VALUE } });
  });

  it("masks MCP headers anywhere in an answer kept for replay, and keeps a __proto__ key as it was", () => {
    const answer = JSON.parse(`{"id":"ses_1","tools":[${JSON.stringify(spec)}],"metadata":{"__proto__":"x"}}`);
    const masked = maskMcpHeadersDeep(answer) as { tools: McpToolSpec[]; metadata: Record<string, string> };
    expect(JSON.stringify(masked)).not.toContain("sk-live");
    expect(masked.tools[0]!.headers).toEqual({ Authorization: MASKED_VALUE, "X-Team": MASKED_VALUE });
    expect(Object.hasOwn(masked.metadata, "__proto__")).toBe(true);
  });

  it("redacts header values, and a bearer token alone, from text a server sends back", () => {
    const text = "got Bearer sk-live-123456 and sk-live-123456 from blue-team";
    expect(serverMasker(spec).mask(text)).toBe(`got ${MASKED_VALUE} and ${MASKED_VALUE} from ${MASKED_VALUE}`);
  });

  it("takes the credentials of a scheme alone, never the scheme word, and a Basic pair decoded", () => {
    const basic = `Basic ${btoa("svc-user:hunter2-password")}`;
    expect(headerSecrets({ Authorization: "Bearer tok_0123456789" })).toEqual(["Bearer tok_0123456789", "tok_0123456789"]);
    expect(headerSecrets({ Authorization: basic })).toEqual([
      basic,
      btoa("svc-user:hunter2-password"),
      "svc-user:hunter2-password",
      "hunter2-password",
    ]);
    expect(serverMasker({ headers: { Authorization: "Bearer tok_0123456789" } }).mask("a bearer token")).toBe("a bearer token");
  });
});
