/**
 * Starts one mock server, one MCP server and one A2A agent in Node for the whole test run and hands their URLs
 * to the workerd tests as `inject("mockUrl")`, `inject("mcpUrl")` and `inject("a2aUrl")`; tests keep apart by using
 * their own keys. Also generates the platform signing key the workers see as `AUTH_SIGNING_KEY`,
 * the API-key secret they see as `AUTH_API_KEY_SECRET`, and the vault's
 * keys they see as `VAULT_KEYS`.
 */
import type { TestProject } from "vitest/node";
import { generateApiKeySecret, generateSigningKey } from "../../../src/auth/dev-signing-key";
import { generateVaultKey } from "../../../src/vault/keys";
import { startA2aServer } from "./a2a-server";
import { startMcpServer } from "./mcp-server";
import { startMockServer } from "./mock-server";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startMockServer();
  project.provide("mockUrl", server.url);
  const mcp = await startMcpServer();
  project.provide("mcpUrl", mcp.url);
  const a2a = await startA2aServer();
  project.provide("a2aUrl", a2a.url);
  // A fresh development-only key per run, so no private key is ever committed.
  project.provide("signingKey", await generateSigningKey());
  project.provide("apiKeySecret", generateApiKeySecret());
  project.provide("vaultKeys", JSON.stringify([generateVaultKey()]));
  return async () => {
    await server.close();
    await mcp.close();
    await a2a.close();
  };
}
