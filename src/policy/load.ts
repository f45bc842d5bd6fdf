/**
 * Loads the Cedar engine (engine.ts, a WebAssembly instance) on first use, once per isolate: an
 * isolate that never judges a call never instantiates it.
 */
export type CedarEngine = typeof import("./engine");

let loading: Promise<CedarEngine> | null = null;

export function loadCedar(): Promise<CedarEngine> {
  loading ??= import("./engine");
  return loading;
}
