import type { TestProject } from "vitest/node";
import { startMockServer } from "./mock-server";

export default async function setup(project: TestProject) {
  const server = await startMockServer();
  project.provide("mockUrl", server.url);
  return async () => server.close();
}

