/**
 * An `agent` tool as the loop sees it: what the model is told, and the one input it may give.
 * It has no `run`: a call starts a child session, which the tool step does (loop/steps/subagents.ts),
 * and its result arrives when the child ends.
 */
import type { AgentToolSpec } from "../../../session-config/types";
import type { Tool } from "./tool";

/** The input schema every agent tool offers: the text handed to the child as its first message. */
export const AGENT_TOOL_INPUT_SCHEMA = {
  type: "object",
  properties: { input: { type: "string", description: "The task for the agent, as its first message." } },
  required: ["input"],
  additionalProperties: false,
} as const;

export function agentTool(spec: AgentToolSpec): Tool {
  return {
    kind: "agent",
    requiresApproval: spec.requires_approval === true,
    // Starting the child is idempotent (its id is derived from the call), so a restart repeats it safely.
    atMostOnce: false,
    definition: {
      name: spec.name,
      description: spec.description,
      input_schema: AGENT_TOOL_INPUT_SCHEMA as unknown as Record<string, unknown>,
    },
  };
}

/** Pure: the text a call hands its child, or why the call's input is not `{ input: string }`. */
export function agentCallInput(input: unknown): { ok: true; text: string } | { ok: false; error: string } {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return { ok: false, error: 'the input must be an object { "input": string }' };
  const keys = Object.keys(input);
  const text = (input as { input?: unknown }).input;
  if (typeof text !== "string" || text.trim() === "")
    return { ok: false, error: 'the input must be { "input": string } with a non-empty string' };
  if (keys.length !== 1) return { ok: false, error: 'the input must have "input" alone' };
  return { ok: true, text };
}
