/** Types of docs-assets.mjs, for the test configuration that calls it. */
export declare const ASSETS_DIRECTORY: string;
export declare const REFERENCE_SCRIPT_PATH: string;
/** Copies the pinned bundle into the assets directory; returns the file written. */
export declare function prepareDocsAssets(): string;
/** Writes `target` whole or not at all, through a temporary file that `write` fills; the same bytes leave it untouched. */
export declare function replaceFile(target: string, write: (temporary: string) => void): void;
/** `replaceFile` with these bytes. */
export declare function writeFileWhole(target: string, bytes: Uint8Array): void;
