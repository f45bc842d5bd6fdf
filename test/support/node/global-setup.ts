/**
 * Starts one mock server in Node for the whole test run and hands its URL to the
 * workerd tests as `inject("mockUrl")`; tests keep apart by using their own keys. Also
 * generates the platform signing key the workers see as `AUTH_SIGNING_KEY`.
 */
import type { TestProject } from "vitest/node";
import { generateSigningKey } from "../../../src/auth/dev-signing-key";
import { startMockServer } from "./mock-server";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startMockServer();
  project.provide("mockUrl", server.url);
  // A fresh development-only key per run, so no private key is ever committed.
  project.provide("signingKey", await generateSigningKey());
  return () => server.close();
}
