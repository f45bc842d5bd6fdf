/** Taint, set where every tool result arrives (finishCall): a result of an untrusted tool taints the run until it ends. */
import { resultTaints } from "../../../policy/trust";
import type { Toolbox } from "../tools/registry";
import { runTainted, type RunState } from "../store/state";
import type { ToolCall } from "../../../session-config/types";

export function taintFromResult(
  host: { store: { run(): RunState }; toolbox(): Toolbox; updateRun(patch: Partial<RunState>): unknown },
  call: ToolCall,
): void {
  const run = host.store.run();
  if (!runTainted(run) && resultTaints(host.toolbox().get(call.name), call)) host.updateRun({ tainted_run: run.run_start_seq });
}
