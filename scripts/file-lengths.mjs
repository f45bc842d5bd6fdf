#!/usr/bin/env node
/**
 * No source file over 400 lines (`npm run lint:deps`): past that, a module holds more than one
 * concern and is split. Usage: node scripts/file-lengths.mjs [folder, default src] [max lines].
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export const MAX_FILE_LINES = 400;
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;

/** Lines as `wc -l` counts them, plus a last line without its newline. */
export function lineCount(text) {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

/** `[path, lines]` of every source file under `dir` longer than `max`, longest first. */
export function longFiles(dir, max = MAX_FILE_LINES) {
  const walk = (d) =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : SOURCE.test(e.name) ? [join(d, e.name)] : [],
    );
  return walk(dir)
    .map((file) => [file, lineCount(readFileSync(file, "utf8"))])
    .filter(([, lines]) => lines > max)
    .sort((a, b) => b[1] - a[1]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? "src";
  const max = Number(process.argv[3] ?? MAX_FILE_LINES);
  const long = longFiles(dir, max);
  if (long.length > 0) {
    console.error(`✘ ${long.length} file(s) over ${max} lines (split each by concern):`);
    for (const [file, lines] of long) console.error(`  ${relative(process.cwd(), file)}: ${lines} lines`);
    process.exit(1);
  }
  console.log(`✔ no file of ${dir}/ over ${max} lines`);
}
