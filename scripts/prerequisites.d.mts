/** Types of prerequisites.mjs, for the browser helper and the node test that use it. */
export declare const DEFAULT_CHROMIUM_PATH: string;
export declare const CHROMIUM_INSTALL: string;
export declare const MIN_PATH_NODE_MAJOR: number;
export declare const LOOPBACK: string;
export declare function chromiumPath(env?: Record<string, string | undefined>): string;
export declare function canListenOnLoopback(host?: string): Promise<boolean>;
export declare function reachesEndToEnd(args: string[]): boolean;
export interface MissingPrerequisite {
  what: string;
  fix: string;
}
export declare function missingPrerequisites(probes?: {
  args?: string[];
  chromium?: string;
  executable?: (path: string) => boolean;
  nodeVersion?: string;
  listen?: () => Promise<boolean>;
}): Promise<MissingPrerequisite[]>;
export declare function prerequisiteReport(missing: MissingPrerequisite[]): string;
