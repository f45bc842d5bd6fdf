export declare const UNMEASURED_SECONDS: number;
export declare function balance(names: string[], seconds: Record<string, number>, count: number): { seconds: number; names: string[] }[];
export declare function e2eShards(root: string, dir: string, count: number): string[][];
