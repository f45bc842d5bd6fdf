/**
 * A `$defs` chain whose every entry is `allOf` of two references to the next: 2^n subschemas
 * applied to any value, `{}` included. About 700 bytes at n = 24; without a bound, seconds per validation.
 */
export function doublingChain(n: number): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  defs[`d${n}`] = { type: "object" };
  return { type: "object", $ref: "#/$defs/d0", $defs: defs };
}
