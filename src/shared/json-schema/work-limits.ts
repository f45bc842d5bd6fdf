/** The work one JSON Schema validation may do, in the units `work-meter.ts` counts, measured on two shared cores. */

/**
 * Subschemas the validator may apply to one node of a value, references and `allOf`/`anyOf`
 * expanded (src/shared/json-schema/complexity.ts). Real tool schemas stay in the tens; a `$defs`
 * chain of `allOf` pairs doubles per entry and reaches this at eight entries, long before it stalls.
 */
export const MAX_SCHEMA_APPLICATIONS = 1_000;
/**
 * Work units of one validation: each read of the value (an element, a property, a key) costs
 * one, each subschema applied `SCHEMA_APPLICATION_WORK`. Measured on two shared cores: about
 * 0.5 µs per unit, so one validation ends within about 150 ms (600 ms with the cores loaded)
 * whatever the value and the schema, and fails closed past that. 5,000 small objects fit.
 */
export const MAX_VALIDATION_WORK = 300_000;
/** A subschema applied, failing, costs about as much as eight reads of the value (its errors). */
export const SCHEMA_APPLICATION_WORK = 8;
/** Characters of a string counted by `minLength`, `maxLength`, a pattern or a format, per unit. */
export const STRING_CHARS_PER_WORK = 256;
/** JSON characters of an `enum` or `const`, compared and written into errors, per unit. */
export const LITERAL_CHARS_PER_WORK = 128;
/**
 * Characters of a `patternProperties` key, per unit, each time the validator compiles it (once per
 * application of its schema) or writes it into a location (once per property it matches). The
 * keys list the input's property names that matched (json-schema/validator.ts), so 6,000 objects
 * each with a name of its own once compiled a 6,000-name regex 6,000 times: 2.2 s on an idle core,
 * 4.9 s with the cores loaded. Measured: about 3 to 6 ns a character, so 128 of them cost about
 * one unit's 0.5 µs.
 */
export const PATTERN_KEY_CHARS_PER_WORK = 128;
/**
 * Validation errors looked at to pick the ones reported: finding the leaves among them is
 * quadratic, and the first hundred say what is wrong.
 */
export const MAX_EXAMINED_ERRORS = 100;
