/** Types of openapi-bounds.mjs, for the node test that runs it. */
export type OpenApiDocumentJson = Record<string, unknown>;
export declare function readDocument(): Promise<OpenApiDocumentJson>;
/** The names of the components a request body or parameter reaches. */
export declare function requestComponents(document: OpenApiDocumentJson): Set<string>;
/** Every request-side schema that lacks a bound: `<JSON pointer>: <what it lacks>`. */
export declare function requestSchemaProblems(document: OpenApiDocumentJson): string[];
/** Spectral's findings with `.spectral.yaml`: the request side's, the rest's, and their count. */
export declare function spectralFindings(
  document: OpenApiDocumentJson,
): Promise<{ request: string[]; responses: string[]; others: number }>;
