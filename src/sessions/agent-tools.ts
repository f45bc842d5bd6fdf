/**
 * The check of a tool list's `agent` tools that needs the tenant's agent store: each must name a
 * live agent (and, with `@version` or `@alias`, one it has) when the session or the agent
 * definition is stored. The agent is resolved again at each call, so an alias moved since then
 * is followed, and one archived since then is the call's error result.
 */
import { AgentClient } from "../agents/client";
import { parseAgentRef } from "../agents/refs";
import type { Env } from "../env";
import { ApiError, type FieldError } from "../problems";
import type { ToolSpec } from "../session-config/types";

/** Every problem of the list's agent tools, each at `<prefix>.<i>.agent`; none when all resolve. */
export async function agentToolProblems(
  env: Env,
  tenantId: string,
  tools: readonly ToolSpec[],
  prefix = "body.tools",
): Promise<FieldError[]> {
  const agents = tools.flatMap((tool, i) => (tool.type === "agent" ? [{ i, ref: tool.agent }] : []));
  if (agents.length === 0) return [];
  const client = new AgentClient(env, tenantId);
  const problems = await Promise.all(
    agents.map(async ({ i, ref }): Promise<FieldError | null> => {
      const path = `${prefix}.${i}.agent`;
      const parsed = parseAgentRef(ref);
      if (!parsed) return { path, message: "Not an agent reference." };
      try {
        await client.resolve(parsed);
        return null;
      } catch (error) {
        if (error instanceof ApiError && error.status < 500) return { path, message: error.detail };
        throw error;
      }
    }),
  );
  return problems.filter((problem): problem is FieldError => problem !== null);
}

/** Throws the 400 for a list whose agent tools do not all resolve. */
export async function requireAgentTools(env: Env, tenantId: string, tools: readonly ToolSpec[]): Promise<void> {
  const errors = await agentToolProblems(env, tenantId, tools);
  if (errors.length > 0) throw new ApiError("validation_failed", undefined, { errors });
}
