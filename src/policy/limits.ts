/**
 * The shape limits of a policy's text, checked before Cedar sees it: Cedar's parser and evaluator
 * recurse on nesting and on chains of operators, and past its WebAssembly stack (about 140 nested
 * parentheses, or some 400 terms joined by `||`, test/policy/limits.test.ts) the instance traps.
 */

/** Brackets of any kind open at once. */
export const MAX_POLICY_NESTING = 32;
/** Operators, method and attribute accesses, and `if`s in one statement. */
export const MAX_STATEMENT_OPERATORS = 128;

const OPERATOR = /^(\|\||&&|==|!=|<=|>=|[<>+\-*!.])/;
const KEYWORD = /^(if|in|has|like|is)\b/;

/** The first limit a policy's text passes, as a message; null when it keeps within them. */
export function shapeError(text: string): string | null {
  let depth = 0;
  let operators = 0;
  let statement = 1;
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") {
      if (++depth > MAX_POLICY_NESTING) return `statement ${statement} nests brackets deeper than ${MAX_POLICY_NESTING}`;
    } else if (c === ")" || c === "]" || c === "}") {
      depth = Math.max(0, depth - 1);
    } else if (c === ";" && depth === 0) {
      statement++;
      operators = 0;
    } else if (/[A-Za-z_]/.test(c) && (i === 0 || !/[A-Za-z0-9_]/.test(text[i - 1]!))) {
      const word = KEYWORD.exec(text.slice(i, i + 5));
      if (word) operators++;
      while (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i++;
      if (operators > MAX_STATEMENT_OPERATORS) return tooMany(statement);
      continue;
    } else {
      const op = OPERATOR.exec(text.slice(i, i + 2));
      if (op) {
        if (++operators > MAX_STATEMENT_OPERATORS) return tooMany(statement);
        i += op[0].length;
        continue;
      }
    }
    i++;
  }
  return null;
}

function tooMany(statement: number): string {
  return `statement ${statement} has more than ${MAX_STATEMENT_OPERATORS} operators; split it, or list values in a set and test it with "in" or ".contains"`;
}
