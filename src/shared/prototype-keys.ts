/**
 * Keys a plain object already answers for: the names of `Object.prototype`. A record whose keys a
 * caller chooses refuses them where a look-up by key would find the prototype's member instead of
 * nothing (`headers["toString"]` is a function), and `__proto__`, which a record drops silently.
 */

const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype).map((name) => name.toLowerCase()));

/** Whether `name` is one of `Object.prototype`'s, in any letter case (HTTP header names ignore case). */
export function isPrototypeName(name: string): boolean {
  return PROTOTYPE_NAMES.has(name.toLowerCase());
}

/**
 * A zod preprocess step: an own `__proto__` key (JSON.parse makes one) is an issue, since the
 * record that follows would drop it without a word.
 */
export function refuseProtoKey(value: unknown, ctx: { addIssue: (issue: { code: "custom"; message: string }) => void }): unknown {
  if (typeof value === "object" && value !== null && Object.hasOwn(value, "__proto__"))
    ctx.addIssue({ code: "custom", message: "`__proto__` is not a key a value may have." });
  return value;
}
