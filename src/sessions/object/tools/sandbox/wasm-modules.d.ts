/** The interpreter's WebAssembly file, imported as a compiled module (see quickjs.ts). */
declare module "@jitl/quickjs-wasmfile-release-sync/wasm" {
  const module: WebAssembly.Module;
  export default module;
}
