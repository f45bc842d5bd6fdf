/**
 * The QuickJS interpreter (compiled to WebAssembly) that runs code a model writes. Each run gets
 * a new WebAssembly instance with its own linear memory, capped in size: nothing one run leaves
 * in memory is there for the next, whoever's session it belongs to.
 *
 * Workers cannot compile WebAssembly from bytes at run time; the `.wasm` file is imported as a
 * module, which the bundler (wrangler, the test runner) compiles ahead of time, and handed to
 * Emscripten instead of letting it fetch the file.
 */
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import quickjsWasm from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";

/** WebAssembly pages are 64 KiB. */
const WASM_PAGE_BYTES = 64 * 1024;
/** The module's own minimum (its static data, stack and first heap): it refuses a smaller memory. */
export const SANDBOX_INITIAL_MEMORY_BYTES = 16 * 1024 * 1024;
/**
 * The hard ceiling of one instance's linear memory. The interpreter's own limit
 * (`RUN_CODE_HEAP_BYTES`, lower) normally stops a run first, with a readable error; this one
 * holds even if its accounting missed an allocation.
 */
export const SANDBOX_MAX_MEMORY_BYTES = 32 * 1024 * 1024;

/** A fresh interpreter: a new instance of the compiled module, with a new, capped memory. */
export function newInterpreter(): Promise<QuickJSWASMModule> {
  const variant = newVariant(releaseSync, {
    wasmModule: quickjsWasm,
    wasmMemory: new WebAssembly.Memory({
      initial: SANDBOX_INITIAL_MEMORY_BYTES / WASM_PAGE_BYTES,
      maximum: SANDBOX_MAX_MEMORY_BYTES / WASM_PAGE_BYTES,
    }),
  });
  return newQuickJSWASMModuleFromVariant(variant);
}
