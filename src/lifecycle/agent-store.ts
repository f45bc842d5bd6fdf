/**
 * The agent store the runtime runs (exported by src/index.ts): the door of src/agents/, given the
 * `EvalHost` its evals start and read sessions with. Wired here, above both, so that src/agents/
 * and src/evals/ never import the sessions layer they would otherwise call up into.
 */
import { AgentStore as AgentStoreDoor } from "../agents/agent-store";
import { evalHost } from "./eval-host";

export class AgentStore extends AgentStoreDoor {
  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env, evalHost(env));
  }
}
