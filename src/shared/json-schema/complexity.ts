/**
 * How much work a schema can make the validator do for one place in a value, computed from the
 * schema's structure alone: the number of subschemas the validator may apply to any single
 * value node, references expanded (each subschema computed once), for values up to
 * `MAX_JSON_DEPTH` levels deep (deeper values meet the work budget of each validation). A `$defs` chain whose entries are `allOf` of two
 * references to the next doubles at every entry; it is refused here, before anything runs.
 */
import { dereference } from "@cfworker/json-schema";
import { MAX_JSON_DEPTH } from "../json-depth";
import { MAX_SCHEMA_APPLICATIONS } from "./work-limits";
import { isObject, mapSchema, type SchemaPath, walkSchema } from "./schema-walk";

export interface ComplexityProblem {
  path: SchemaPath;
  message: string;
}

/** Subschemas applied to the same value as the schema that holds them. */
const IN_PLACE_ONE = ["not", "if", "then", "else"] as const;
const IN_PLACE_ARRAY = ["allOf", "anyOf", "oneOf"] as const;
const IN_PLACE_MAP = ["dependentSchemas", "dependencies"] as const;

type Node = unknown;
type Kind = "object" | "array";

/** Counts above the budget are kept at budget + 1: only "over" matters, and sums stay small. */
const OVER = MAX_SCHEMA_APPLICATIONS + 1;
const cap = (n: number) => Math.min(n, OVER);

class TooComplex extends Error {
  constructor(
    readonly node: Node,
    readonly why: "cycle" | "budget",
  ) {
    super(why);
  }
}

/** Null when the schema is within budget; otherwise where and why it is not. */
export function complexityProblem(schema: unknown): ComplexityProblem | null {
  if (!isObject(schema)) return null;
  // The validator's own resolution of `$ref` ($id, anchors, pointers), on a copy it may annotate.
  const copy = mapSchema(schema, (node) => node) as Record<string, unknown>;
  const paths = new Map<Node, SchemaPath>();
  const anchors: Node[] = [copy];
  walkSchema(copy, (node, path) => {
    if (!paths.has(node)) paths.set(node, path);
    if (node.$recursiveAnchor === true) anchors.push(node);
  });
  let lookup: Record<string, unknown>;
  try {
    lookup = dereference(copy as never) as Record<string, unknown>;
  } catch (err) {
    return {
      path: [],
      message: `The schema cannot be used: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 300)}`,
    };
  }
  try {
    new Measure(lookup, anchors).check(copy);
    return null;
  } catch (err) {
    if (err instanceof RangeError) return { path: [], message: tooComplex() };
    if (!(err instanceof TooComplex)) throw err;
    const path = paths.get(err.node) ?? [];
    if (err.why === "cycle")
      return { path, message: "Refers back to itself without descending into the value: validating would never end." };
    return { path, message: tooComplex() };
  }
}

function tooComplex(): string {
  return `Too complex: the validator may apply more than ${MAX_SCHEMA_APPLICATIONS} subschemas to one value (references and allOf/anyOf/oneOf count in full, at every level of nesting).`;
}

class Measure {
  readonly #inPlace = new Map<Node, number>();
  readonly #visiting = new Set<Node>();
  /** Per node, per depth: the most subschemas applied to one value node that deep below it. */
  readonly #below = new Map<Node, number[]>();

  constructor(
    readonly lookup: Record<string, unknown>,
    readonly anchors: readonly Node[],
  ) {}

  check(root: Node): void {
    for (let depth = 0; depth <= MAX_JSON_DEPTH; depth++) {
      if (this.applied(root, depth) >= OVER) throw new TooComplex(root, "budget");
    }
  }

  /** Subschemas applied to one value node `depth` levels below the value this schema is applied to. */
  applied(node: Node, depth: number): number {
    if (depth === 0) return this.inPlace(node);
    let memo = this.#below.get(node);
    if (!memo) this.#below.set(node, (memo = []));
    const known = memo[depth];
    if (known !== undefined) return known;
    const result = Math.max(this.#descend(node, depth, "object"), this.#descend(node, depth, "array"));
    memo[depth] = result;
    if (result >= OVER) throw new TooComplex(node, "budget");
    return result;
  }

  /** Applications at the value itself: the schema and every subschema applied in place, expanded. */
  inPlace(node: Node): number {
    const known = this.#inPlace.get(node);
    if (known !== undefined) return known;
    if (this.#visiting.has(node)) throw new TooComplex(node, "cycle");
    this.#visiting.add(node);
    let total = 1;
    for (const child of this.#inPlaceChildren(node)) total = cap(total + this.inPlace(child));
    this.#visiting.delete(node);
    this.#inPlace.set(node, total);
    if (total >= OVER) throw new TooComplex(node, "budget");
    return total;
  }

  /**
   * For a value node `depth` below, when the value here is of `kind`: what this schema's own
   * children apply (one `properties` entry per key, every pattern, the rest), plus the same of
   * every subschema applied here in place. A sum of maxima, so never below the real count.
   */
  #descend(node: Node, depth: number, kind: Kind): number {
    if (!isObject(node)) return 0;
    let total = 0;
    const below = (child: unknown) => (child === undefined ? 0 : this.applied(child, depth - 1));
    const most = (children: unknown) => {
      let best = 0;
      if (Array.isArray(children)) for (const child of children) best = Math.max(best, below(child));
      else if (isObject(children)) for (const child of Object.values(children)) best = Math.max(best, below(child));
      return best;
    };
    const all = (children: unknown) =>
      isObject(children) ? Object.values(children).reduce<number>((sum, child) => cap(sum + below(child)), 0) : 0;
    if (kind === "object") {
      total = cap(
        most(node.properties) +
          all(node.patternProperties) +
          below(node.additionalProperties) +
          below(node.propertyNames) +
          below(node.unevaluatedProperties),
      );
    } else {
      const items = Array.isArray(node.items) ? most(node.items) : below(node.items);
      total = cap(most(node.prefixItems) + items + below(node.additionalItems) + below(node.contains) + below(node.unevaluatedItems));
    }
    for (const child of this.#inPlaceChildren(node)) total = cap(total + this.#descend(child, depth, kind));
    return total;
  }

  #inPlaceChildren(node: Node): unknown[] {
    if (!isObject(node)) return [];
    const children: unknown[] = [];
    for (const key of IN_PLACE_ONE) if (node[key] !== undefined) children.push(node[key]);
    for (const key of IN_PLACE_ARRAY) if (Array.isArray(node[key])) children.push(...(node[key] as unknown[]));
    for (const key of IN_PLACE_MAP) if (isObject(node[key])) children.push(...Object.values(node[key]).filter((v) => !Array.isArray(v)));
    if (typeof node.$ref === "string") {
      const target = this.lookup[(node.__absolute_ref__ as string | undefined) ?? node.$ref];
      if (target !== undefined) children.push(target);
    }
    // Resolved at run time to the nearest dynamic anchor: any of them, to be safe.
    if (node.$recursiveRef !== undefined) children.push(...this.anchors);
    return children;
  }
}
