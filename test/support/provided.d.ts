/** Values that the Node-side global setup provides to the tests. */
declare module "vitest" {
  export interface ProvidedContext {
    mockUrl: string;
    /** The private JWK (JSON text) configured as `AUTH_SIGNING_KEY`; tests mint tokens with it. */
    signingKey: string;
  }
}
export {};
