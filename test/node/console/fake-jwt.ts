/** Test tokens for the console's unit tests. */

/** An unsigned JWT with `payload`: the console reads claims, it never verifies them. */
export function fakeJwt(payload: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "ES256", typ: "JWT" })}.${part(payload)}.c2lnbmF0dXJl`;
}
