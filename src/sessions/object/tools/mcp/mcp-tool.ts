/**
 * An MCP server's tool as the loop runs it: offered under its saved name, called with
 * `tools/call` on the unit's connection to its server. At-most-once tools are sent once;
 * tools whose repeat is harmless are tried again (on a new connection) after a failure that
 * may pass, within one time budget.
 */
import { deadline } from "../../../../shared/deadline";
import type { McpToolSpec } from "../../../../session-config/types";
import type { Tool, ToolContext, ToolOutcome } from "../tool";
import { serverMasker } from "../../../../session-config/masking";
import { describeFailure, outputSchemaViolation, resultText } from "./outcome";
import type { DiscoveredTool } from "./plan";
import { markAtMostOnce } from "../at-most-once";
import { linearDelay, retrying, type RetryPolicy } from "../../../../shared/retry";

/** One try's wait for the answer. */
export const MCP_CALL_TIMEOUT_MS = 30_000;
/** Tries in all for a tool whose repeat is harmless. */
export const MCP_CALL_ATTEMPTS = 3;
/**
 * Every try of one call together, connections included: the tool unit starts no call after
 * `UNIT_BUDGET_MS`, so this keeps the last one within the alarm's 300 s.
 */
export const MCP_CALL_BUDGET_MS = 90_000;
const MCP_CALL_RETRY: RetryPolicy = { maxAttempts: MCP_CALL_ATTEMPTS, delayMs: linearDelay(500) };

export function mcpTool(tool: DiscoveredTool, spec: McpToolSpec): Tool {
  return {
    kind: "mcp",
    requiresApproval: spec.requires_approval === true,
    atMostOnce: tool.at_most_once,
    definition: { name: tool.name, description: tool.description, input_schema: tool.input_schema },
    // Connected before the call is marked running: a crash while connecting loses no call.
    prepare: async (ctx) => {
      await ctx.mcp.get(spec, ctx.signal).catch(() => undefined);
    },
    run: (input, ctx) => callMcpTool(tool, spec, input, ctx),
  };
}

async function callMcpTool(tool: DiscoveredTool, spec: McpToolSpec, input: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  const masker = serverMasker(spec);
  const args = input !== null && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const budget = deadline(MCP_CALL_BUDGET_MS);
  const signal = AbortSignal.any([ctx.signal, budget.signal]);
  const notCalled: ToolOutcome = { output: `MCP server "${spec.name}" was not called`, isError: true };
  try {
    return await retrying(markAtMostOnce(tool.at_most_once).tries(MCP_CALL_RETRY), signal, notCalled, async () => {
      try {
        const connection = await ctx.mcp.get(spec, signal);
        const result = await connection.callTool(tool.remote_name, args, signal, MCP_CALL_TIMEOUT_MS);
        const violation = outputSchemaViolation(result, tool.output_schema);
        // Final, never tried again: the server answered, and would answer alike.
        if (violation !== null)
          return { done: true, value: { output: masker.mask(`MCP server "${spec.name}": ${violation}`), isError: true } };
        // The whole text at once: a value split across two blocks is found like a whole one.
        return { done: true, value: { output: masker.mask(resultText(result)), isError: result.isError === true } };
      } catch (error) {
        const failure = await describeFailure(spec.name, error, masker);
        // A new connection for the next try.
        ctx.mcp.drop(spec);
        const credentialFailure = failure.credential ? { credentialFailure: failure.credential } : {};
        return { done: false, value: { output: failure.message, isError: true, ...credentialFailure }, transient: failure.transient };
      }
    });
  } finally {
    budget.clear();
  }
}
