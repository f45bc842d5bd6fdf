/**
 * The run's answer in two keys: `run_output_schema`, the current (or last) run's schema, and
 * `run_output`, the parsed answer of the last run that ended `done` with one.
 */
import type { OutputSchema } from "../../../session-config/types";

const RUN_OUTPUT_SCHEMA_KEY = "run_output_schema";
const RUN_OUTPUT_KEY = "run_output";

export function runOutputSchema(kv: SyncKvStorage): OutputSchema | null | undefined {
  return kv.get<OutputSchema | null>(RUN_OUTPUT_SCHEMA_KEY);
}

export function beginRunOutput(kv: SyncKvStorage, schema: OutputSchema | null): void {
  kv.put(RUN_OUTPUT_SCHEMA_KEY, schema);
  kv.delete(RUN_OUTPUT_KEY);
}

export function runOutput(kv: SyncKvStorage): unknown {
  return kv.get(RUN_OUTPUT_KEY) ?? null;
}

export function setRunOutput(kv: SyncKvStorage, output: unknown): void {
  kv.put(RUN_OUTPUT_KEY, output);
}
