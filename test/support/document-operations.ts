/**
 * The served OpenAPI document's operations, walked by the tests that must cover every route the
 * day it exists (the security matrix, the end users' route table, bodies on methods without one).
 * Path parameters get well-formed sample values, so only what a test looks at refuses the call.
 */
import { call } from "./api";

export interface DocumentOperation {
  operationId: string;
  security: Record<string, string[]>[];
  requestBody?: unknown;
}

export interface WalkedOperation {
  /** `METHOD /template`, as the document and the end users' allowed list name it. */
  name: string;
  method: string;
  template: string;
  /** The template with every parameter given a sample value. */
  path: string;
  op: DocumentOperation;
}

/** A well-formed value for each path parameter; any other gets `sample`. */
export const SAMPLE_PARAMS: Readonly<Record<string, string>> = {
  tenant_id: "acme",
  key_id: "key_0123456789abcdef01234567",
  id: "ses_sample",
  session_id: "ses_sample",
  call_id: "toolu_sample",
  agent_id: "agt_sample0123456789abcdefgh",
  subject: "someone",
};

/** `template` with each `{param}` replaced by its sample value. */
export function samplePath(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, param: string) => SAMPLE_PARAMS[param] ?? "sample");
}

async function servedPaths(): Promise<Record<string, Record<string, DocumentOperation>>> {
  return ((await (await call("/openapi.json")).json()) as { paths: Record<string, Record<string, DocumentOperation>> }).paths;
}

/** Every path of the served document, with sample parameters. */
export async function documentPaths(): Promise<string[]> {
  return Object.keys(await servedPaths()).map(samplePath);
}

/** Every operation that asks for credentials, with sample parameters. */
export async function securedOperations(): Promise<WalkedOperation[]> {
  return Object.entries(await servedPaths()).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([, op]) => op.security.length > 0)
      .map(([method, op]) => ({
        name: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        path: samplePath(template),
        op,
      })),
  );
}
