/** Markdown tables, and the marked sections of BENCHMARKS.md that a run rewrites. */
import { readFile, writeFile } from "node:fs/promises";

export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
  /** Lines printed under the table: what was measured, how often, under what load. */
  notes?: string[];
}

export function renderTable(table: Table): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    `#### ${table.title}`,
    "",
    line(table.columns),
    line(table.columns.map(() => "---")),
    ...table.rows.map(line),
    ...(table.notes?.length ? ["", ...table.notes.map((note) => `- ${note}`)] : []),
    "",
  ].join("\n");
}

const start = (name: string) => `<!-- bench:${name}:start -->`;
const end = (name: string) => `<!-- bench:${name}:end -->`;

/** Replaces what lies between the section's markers, or appends the section when it has none. */
export async function rewriteSection(path: string, name: string, body: string): Promise<void> {
  const text = await readFile(path, "utf8").catch(() => "");
  const from = text.indexOf(start(name));
  const to = text.indexOf(end(name));
  const block = `${start(name)}\n${body.trim()}\n${end(name)}`;
  const next = from >= 0 && to > from ? text.slice(0, from) + block + text.slice(to + end(name).length) : `${text.trimEnd()}\n\n${block}\n`;
  await writeFile(path, next);
}
