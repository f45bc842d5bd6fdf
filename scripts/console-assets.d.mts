/** Types of console-assets.mjs, for the tests that build and measure the console. */
export declare const CONSOLE_ASSETS_PATH: string;
export interface BuiltFile {
  /** Path under the assets directory, e.g. `console/assets/console.js`. */
  file: string;
  bytes: number;
  gzipBytes: number;
}
export declare function buildConsoleAssets(): BuiltFile[];
export declare function describeSizes(files: BuiltFile[]): string;
