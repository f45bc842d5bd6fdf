/** Types of console-assets.mjs, for the tests that build and measure the console. */
export declare const CONSOLE_ASSETS_PATH: string;
export interface BuiltFile {
  /** Path under the assets directory, e.g. `console/assets/console.js`. */
  file: string;
  bytes: number;
  gzipBytes: number;
  /** The files it loads, each at once or on demand (`dynamic`: a lazily loaded page). */
  imports: { file: string; dynamic: boolean }[];
}
/** Builds under `assetsDirectory`, the Worker's assets directory by default. */
export declare function buildConsoleAssets(assetsDirectory?: string): BuiltFile[];
export declare function describeSizes(files: BuiltFile[]): string;
