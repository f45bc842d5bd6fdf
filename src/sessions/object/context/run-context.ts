/**
 * The context decision for the run's next model call, made the one way both the loop's choice
 * of unit and the units themselves need it: the session's tools plus the run's output tool.
 */
import type { Config } from "../../../config";
import type { ToolDefinition } from "../model/provider";
import { type OutputRequest } from "../output/output-tool";
import { outputToolsFor } from "../output/call-tools";
import type { StoredSession } from "../store/store";
import type { StoreReads } from "../engine/unit-scope";
import { toolDefinitions, type Toolbox } from "../tools/registry";
import { type ContextDecision, decideContext } from "./plan";
import type { RunState } from "../store/store";

/** What the decision reads: a step's scope, or the engine itself. */
export interface ContextSource {
  readonly store: StoreReads;
  readonly config: Config;
  requireSession(): StoredSession;
  toolbox(): Toolbox;
}

export interface RunContext {
  decision: ContextDecision;
  session: StoredSession;
  run: RunState;
  /** The session's tools, as the call declares them. */
  tools: ToolDefinition[];
  output: OutputRequest | null;
}

/** See `decideContext` for `summarize`. */
export function runContext(source: ContextSource, maxTokens: number, summarize = true): RunContext {
  const session = source.requireSession();
  const run = source.store.run();
  const tools = toolDefinitions(source.toolbox());
  const { tools: counted, output } = outputToolsFor(source.store, tools);
  const decision = decideContext(
    { store: source.store, session, run, catalog: source.config.models, tools: counted },
    maxTokens,
    summarize,
  );
  return { decision, session, run, tools, output };
}
