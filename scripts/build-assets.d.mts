/** Types of build-assets.mjs, for the test configuration that calls it. */
/** Puts the API reference's bundle and the console's into the assets directory. */
export declare function buildAssets(): void;
