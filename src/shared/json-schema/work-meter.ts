/** The validator's work counted and bounded: the meter every validation runs under, and the work of schema parts that read nothing of the value. */
import {
  LITERAL_CHARS_PER_WORK,
  MAX_EXAMINED_ERRORS,
  MAX_VALIDATION_WORK,
  PATTERN_KEY_CHARS_PER_WORK,
  SCHEMA_APPLICATION_WORK,
  STRING_CHARS_PER_WORK,
} from "./work-limits";
import { isObject } from "./schema-walk";

/**
 * Counts the validator's work and stops it past a budget, whatever it does: every subschema it
 * applies reads `__absolute_ref__` of that schema once (the field it keeps a resolved `$ref` in),
 * and every element, property or key list it reads of the value passes through a proxy. The
 * quadratic `uniqueItems` and deep `enum`/`const` comparisons read the value, so they count too.
 */
export class WorkMeter {
  /** Thrown through the validator, which catches nothing, to stop it. */
  readonly exhausted = new Error("validation work budget exhausted");
  readonly #proxies = new WeakMap<object, object>();
  #left: number;
  /** Extra units for a property name the validator will write a long `patternProperties` key for (`PatternRun.keyWork`). */
  keyWork: ReadonlyMap<string, number> = new Map();

  constructor(budget: number) {
    this.#left = budget;
  }

  charge(units: number): void {
    this.#left -= units;
    if (this.#left < 0) throw this.exhausted;
  }

  meterSchema(node: Record<string, unknown>): Record<string, unknown> {
    let resolved: unknown = node.__absolute_ref__;
    // `true` and `false` are subschemas with no field to read: each is counted with the schema
    // that applies it in place (allOf and the like; elsewhere the value's reads count).
    const units = SCHEMA_APPLICATION_WORK * (1 + inPlaceBooleans(node)) + literalWork(node) + patternKeyWork(node);
    Object.defineProperty(node, "__absolute_ref__", {
      get: () => {
        this.charge(units);
        return resolved;
      },
      set: (value: unknown) => {
        resolved = value;
      },
      enumerable: false,
      configurable: true,
    });
    return node;
  }

  meterValue(value: unknown): unknown {
    if (typeof value !== "object" || value === null) return value;
    const known = this.#proxies.get(value);
    if (known) return known;
    const proxy = new Proxy(value, {
      get: (target, key, receiver) => {
        this.charge(1);
        return this.meterValue(Reflect.get(target, key, receiver));
      },
      getOwnPropertyDescriptor: (target, key) => {
        this.charge(1);
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
      has: (target, key) => {
        this.charge(1);
        return Reflect.has(target, key);
      },
      ownKeys: (target) => {
        const keys = Reflect.ownKeys(target);
        let units = 1 + keys.length;
        if (this.keyWork.size > 0) for (const key of keys) if (typeof key === "string") units += this.keyWork.get(key) ?? 0;
        this.charge(units);
        return keys;
      },
    });
    this.#proxies.set(value, proxy);
    return proxy;
  }
}

/**
 * `enum` and `const` are compared with every value they are applied to, and written out whole in
 * the error when it does not match: work in their size that reads nothing of the value.
 */
export function literalWork(node: Record<string, unknown>): number {
  let chars = 0;
  for (const key of ["enum", "const"]) if (node[key] !== undefined) chars += JSON.stringify(node[key])?.length ?? 0;
  return Math.ceil(chars / LITERAL_CHARS_PER_WORK);
}

/**
 * The validator compiles every `patternProperties` key each time it applies the schema, and the
 * rewritten keys list the input's property names: work in the input's size per application
 * (and per matching name, `PatternRun.keyWork`).
 */
export function patternKeyWork(node: Record<string, unknown>): number {
  if (!isObject(node.patternProperties)) return 0;
  let chars = 0;
  for (const key of Object.keys(node.patternProperties)) chars += key.length;
  return Math.ceil(chars / PATTERN_KEY_CHARS_PER_WORK);
}

export function inPlaceBooleans(node: Record<string, unknown>): number {
  let count = 0;
  for (const key of ["allOf", "anyOf", "oneOf"])
    if (Array.isArray(node[key])) count += (node[key] as unknown[]).filter((sub) => typeof sub === "boolean").length;
  for (const key of ["not", "if", "then", "else"]) if (typeof node[key] === "boolean") count++;
  if (isObject(node.dependentSchemas)) count += Object.values(node.dependentSchemas).filter((sub) => typeof sub === "boolean").length;
  return count;
}

/** Every property name anywhere in `value`: the only strings a `patternProperties` key is tested on. */
export function propertyNames(value: unknown): Set<string> {
  const names = new Set<string>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    // One by one: spreading a long array into push() overflows the stack.
    if (Array.isArray(item)) for (const element of item) stack.push(element);
    else if (isObject(item)) {
      for (const [key, sub] of Object.entries(item)) {
        names.add(key);
        stack.push(sub);
      }
    }
  }
  return names;
}
