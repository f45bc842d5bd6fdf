/**
 * Starts one mock server in Node for the whole test run and hands its URL to the
 * workerd tests as `inject("mockUrl")`; tests keep apart by using their own keys.
 */
import type { TestProject } from "vitest/node";
import { startMockServer } from "./mock-server";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startMockServer();
  project.provide("mockUrl", server.url);
  return () => server.close();
}
