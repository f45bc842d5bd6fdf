/** Values that the Node-side global setup provides to the tests. */
declare module "vitest" {
  export interface ProvidedContext {
    mockUrl: string;
  }
}
export {};
