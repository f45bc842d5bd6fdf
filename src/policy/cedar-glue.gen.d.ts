/** Types of cedar-glue.gen.js (scripts/cedar-glue.mjs): the package's functions, from a new instance. */
export type Cedar = Omit<typeof import("@cedar-policy/cedar-wasm/web"), "default" | "initSync">;
export function createCedar(module: WebAssembly.Module): Cedar;
