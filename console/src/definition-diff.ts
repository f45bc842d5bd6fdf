/**
 * Two agent versions compared the way people read a change: each definition pretty-printed with
 * its object keys sorted (the platform's canonical form, in which key order is never a change),
 * compared line by line with jsdiff's Myers diff, and long unchanged stretches folded down to the
 * lines around each change. Pure.
 */
import { diffLines } from "diff";

export type DiffLine =
  | { kind: "same"; text: string; oldLine: number; newLine: number }
  | { kind: "removed"; text: string; oldLine: number }
  | { kind: "added"; text: string; newLine: number };

/** A row to show: a line, or a stretch of `count` unchanged lines left out. */
export type DiffRow = DiffLine | { kind: "fold"; count: number; oldLine: number; newLine: number };

/** Unchanged lines kept on each side of a change, as `diff -u` keeps them. */
export const CONTEXT_LINES = 3;

/** A definition as the diff compares it: keys sorted at every depth, arrays in order, two-space indents. */
export function definitionText(definition: unknown): string {
  return JSON.stringify(sortKeys(definition), null, 2) ?? "";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    // Defined, not assigned: a key named `__proto__` stays an own property and is shown.
    Object.defineProperty(out, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Every line of `after` against `before`, numbered on its side(s), removals before additions. */
export function lineDiff(before: string, after: string): DiffLine[] {
  // Each text ends with a newline, so a last line that gained a successor is not a change of its own.
  const changes = diffLines(`${before}\n`, `${after}\n`);
  const lines: DiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const change of changes) {
    const texts = change.value.split("\n");
    texts.pop();
    for (const text of texts) {
      if (change.added) lines.push({ kind: "added", text, newLine: newLine++ });
      else if (change.removed) lines.push({ kind: "removed", text, oldLine: oldLine++ });
      else lines.push({ kind: "same", text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  return lines;
}

/** Leaves `context` unchanged lines beside each change and folds the rest; a fold always hides at least two lines. */
export function foldUnchanged(lines: readonly DiffLine[], context = CONTEXT_LINES): DiffRow[] {
  const rows: DiffRow[] = [];
  let start = 0;
  while (start < lines.length) {
    const first = lines[start]!;
    if (first.kind !== "same") {
      rows.push(first);
      start++;
      continue;
    }
    let end = start;
    while (end < lines.length && lines[end]!.kind === "same") end++;
    // Kept: the lines after a change before the stretch, and before the change after it.
    const head = start === 0 ? 0 : context;
    const tail = end === lines.length ? 0 : context;
    const hidden = end - start - head - tail;
    if (hidden < 2) {
      rows.push(...lines.slice(start, end));
    } else {
      rows.push(...lines.slice(start, start + head));
      const folded = lines[start + head] as Extract<DiffLine, { kind: "same" }>;
      rows.push({ kind: "fold", count: hidden, oldLine: folded.oldLine, newLine: folded.newLine });
      rows.push(...lines.slice(end - tail, end));
    }
    start = end;
  }
  return rows;
}

/** How many lines a diff adds and removes. */
export function diffCounts(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.kind === "added") added++;
    if (line.kind === "removed") removed++;
  }
  return { added, removed };
}
