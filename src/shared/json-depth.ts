/**
 * Nesting depth of a parsed JSON value, measured without recursion. Deeply nested input is
 * refused at the edge: it gains a caller nothing and can exhaust the stack of whatever later
 * walks it (structured clone on the way to a Durable Object, a schema validator).
 */
export const MAX_JSON_DEPTH = 32;

export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}
