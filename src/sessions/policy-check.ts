/** The one check of a tool policy's text, wherever one is given: valid against the schema, or a 400 with the validator's messages. */
import { loadCedar } from "../policy/load";
import { ApiError } from "../problems";
import { configOf } from "../agents/definition";
import type { AgentDefinition } from "../agents/types";

/** The policy's statement count, or the 400 with each of the validator's messages at `path`. */
export async function requireValidPolicy(cedar: string, path: string): Promise<number> {
  const check = (await loadCedar()).checkPolicy(cedar);
  if (!check.ok) throw new ApiError("validation_failed", undefined, { errors: check.errors.map((message) => ({ path, message })) });
  return check.statements;
}

/** An agent definition's `policy`, when it has one: checked as a create body's is. */
export async function requireValidDefinitionPolicy(definition: AgentDefinition): Promise<void> {
  const policy = configOf(definition).policy;
  if (policy) await requireValidPolicy(policy.cedar, "body.policy.cedar");
}
