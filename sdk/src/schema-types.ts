/**
 * The TypeScript type of a value valid for a JSON Schema written as a literal (`as const`, or
 * inline in a `runSession` call): the subset tool inputs use (objects with `properties` and
 * `required`, arrays, strings, numbers, booleans, `enum`, `const`); `unknown` beyond it, never a
 * type that claims more than the schema checks.
 */
export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { type: "string" }
      ? string
      : S extends { type: "integer" | "number" }
        ? number
        : S extends { type: "boolean" }
          ? boolean
          : S extends { type: "null" }
            ? null
            : S extends { type: "array"; items: infer I }
              ? FromSchema<I>[]
              : S extends { type: "array" }
                ? unknown[]
                : S extends { type: "object"; properties: infer P }
                  ? ObjectOf<P, S extends { required: readonly (infer R)[] } ? R : never>
                  : S extends { type: "object" }
                    ? Record<string, unknown>
                    : unknown;

type ObjectOf<P, Required> = Flatten<
  { -readonly [K in keyof P & Required]: FromSchema<P[K]> } & { -readonly [K in Exclude<keyof P, Required>]?: FromSchema<P[K]> }
>;

type Flatten<T> = { [K in keyof T]: T[K] };
