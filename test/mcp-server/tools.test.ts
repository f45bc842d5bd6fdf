/** The MCP server's pure parts: agents as tools, the call's derived session, cancellations and the waiting result. */
import { describe, expect, it } from "vitest";
import { agentTool, INPUT_SCHEMA } from "../../src/mcp-server/tools";
import { callSessionId, waitingResult } from "../../src/mcp-server/run-agent";
import { cancelledRequests } from "../../src/mcp-server/server";

const OBJECT = { type: "object", properties: { city: { type: "string" } } };

describe("agentTool", () => {
  it("offers the agent's name, description and input { input }, with an object output schema as outputSchema", () => {
    expect(agentTool({ name: "triage", description: "Sorts tickets", definition: { name: "triage", output_schema: OBJECT } })).toEqual({
      name: "triage",
      description: "Sorts tickets",
      inputSchema: INPUT_SCHEMA,
      outputSchema: OBJECT,
    });
  });

  it("leaves out an output schema MCP cannot carry (not an object), and describes an agent without a description", () => {
    const tool = agentTool({ name: "lister", description: null, definition: { name: "lister", output_schema: { type: "array" } } });
    expect(tool).not.toHaveProperty("outputSchema");
    expect(tool.description).toBe("The agent lister.");
  });
});

describe("callSessionId", () => {
  it("derives the same session for the same MCP session and request, a different one for another caller, none without an MCP session", async () => {
    const alice = { tenantId: "t", subject: "alice" };
    const id = await callSessionId(alice, "mcp_a", 7);
    expect(id).toMatch(/^ses_/);
    expect(await callSessionId(alice, "mcp_a", 7)).toBe(id);
    expect(await callSessionId(alice, "mcp_a", "7")).not.toBe(id);
    expect(await callSessionId({ tenantId: "t", subject: "bob" }, "mcp_a", 7)).not.toBe(id);
    expect(await callSessionId(alice, "mcp_b", 7)).not.toBe(id);
    expect(await callSessionId(alice, null, 7)).toBeNull();
  });
});

describe("cancelledRequests", () => {
  it("reads the request ids of cancellations, alone or in a batch, and nothing else", () => {
    expect(cancelledRequests({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } })).toEqual([3]);
    expect(
      cancelledRequests([
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } },
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: { no: 1 } } },
      ]),
    ).toEqual(["a"]);
    expect(cancelledRequests(null)).toEqual([]);
  });
});

describe("waitingResult", () => {
  it("names the session and each call it waits for, as an error result a client with an output schema accepts", () => {
    const result = waitingResult("ses_x", "waiting_approval", [
      {
        id: "toolu_1",
        name: "wire",
        step: 1,
        input: { n: 1 },
        status: "waiting_approval",
        output: null,
        is_error: false,
        decided_by: null,
        decided_at: null,
        decision: null,
      },
    ]);
    expect(result.isError).toBe(true);
    expect(result._meta).toEqual({
      session_id: "ses_x",
      status: "waiting_approval",
      waiting_for: [{ tool_call_id: "toolu_1", name: "wire", status: "waiting_approval", input: { n: 1 } }],
    });
    expect(result.content[0]!.text).toContain("ses_x");
    expect(result.content[0]!.text).toContain("approval of wire");
  });
});
