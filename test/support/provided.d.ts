/** Values that the Node-side global setup provides to the tests. */
declare module "vitest" {
  export interface ProvidedContext {
    mockUrl: string;
    /** The MCP test server (test/support/node/mcp-server.ts); `/mcp/<key>` for a test's own key. */
    mcpUrl: string;
    /** The A2A test agent (test/support/node/a2a-server.ts); `/a2a/<key>/card.json` for a test's own key. */
    a2aUrl: string;
    /** The private JWK (JSON text) configured as `AUTH_SIGNING_KEY`; tests mint tokens with it. */
    signingKey: string;
    /** The secret configured as `AUTH_API_KEY_SECRET`; tests make legacy and forged keys beside it. */
    apiKeySecret: string;
    /** The JSON list configured as `VAULT_KEYS` (one fresh key); tests rotate to lists around it. */
    vaultKeys: string;
  }
}
export {};
