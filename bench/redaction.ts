/**
 * The cost of redaction (src/shared/redaction/), which runs on each user message, tool output and
 * answer of a tenant that set it: each detector alone and the five together, on a tool output of
 * the default `max_tool_output_chars` (8,000), on the largest text one pass reads (200,000), on
 * prose full of matches, and on adversarial runs (digits, `a@`, `+1 `).
 * Run: `npx node bench/redaction.run.mjs`.
 */
import { MAX_REDACTION_INPUT_CHARS, redactText } from "../src/shared/redaction/redact";
import { REDACTION_DETECTORS, type RedactionDetector } from "../src/shared/redaction/settings";

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(runs: number, work: () => unknown): number {
  for (let i = 0; i < Math.min(runs, 3); i++) work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** A flat string of `chars` made of `unit` repeated, as a decoded response body is. */
function repeated(unit: string, chars: number): string {
  return new TextDecoder().decode(new TextEncoder().encode(unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars)));
}

const JSON_ROWS = '{"id":12345,"name":"row","status":"ok","value":3.25,"updated":"2026-12-07T09:00:00Z"},\n';
const PROSE = "Order 12345 shipped on 2026-01-15 to Alice (alice@example.com, +1 415 555 0100), card 4111 1111 1111 1111, total 1,500.00. ";

export default function main(): void {
  const max = MAX_REDACTION_INPUT_CHARS;
  const texts: [string, string][] = [
    ["tool output, JSON rows, 8,000 chars", repeated(JSON_ROWS, 8_000)],
    [`tool output, JSON rows, ${max.toLocaleString("en")} chars`, repeated(JSON_ROWS, max)],
    [`prose with 4 matches per line, ${max.toLocaleString("en")} chars`, repeated(PROSE, max)],
    [`digits, ${max.toLocaleString("en")} chars`, "7".repeat(max)],
    [`"a@" repeated, ${max.toLocaleString("en")} chars`, repeated("a@", max)],
    [`"+1 " repeated, ${max.toLocaleString("en")} chars`, repeated("+1 ", max)],
  ];
  const columns: (RedactionDetector | "all five")[] = [...REDACTION_DETECTORS, "all five"];
  console.log(`| text | ${columns.join(" | ")} | µs per char (all five) |`);
  console.log(`|---|${columns.map(() => "---:").join("|")}|---:|`);
  for (const [name, text] of texts) {
    const runs = text.length <= 10_000 ? 50 : 5;
    const ms = columns.map((column) => time(runs, () => redactText(text, column === "all five" ? REDACTION_DETECTORS : [column])));
    const perChar = (ms.at(-1)! * 1000) / text.length;
    console.log(`| ${name} | ${ms.map((m) => m.toFixed(1)).join(" | ")} | ${perChar.toFixed(2)} |`);
  }
}
