/** Types of dev-args.mjs, for the node test that reads what `npm run dev` runs with. */
export declare const LOCAL_VARS: Record<string, string>;
export declare const PROVIDER_KEY: string;
export declare const MOCK_PROVIDER_KEY: string;
export declare function argValue(args: string[], name: string): string | undefined;
export declare function withoutArg(args: string[], name: string): string[];
export declare function wranglerDevArgs(options: {
  root: string;
  mode: "mock" | "dev-vars" | "environment";
  mockUrl?: string;
  envFile?: string;
  devVarsPath?: string;
  userArgs?: string[];
}): string[];
export declare function effectiveVars(configVars: Record<string, string>, args: string[]): Record<string, string>;
