/**
 * The memory benchmark's items and queries, the same on every run: a vocabulary of made-up words
 * drawn with a seeded generator, item texts whose word frequencies follow Zipf's law as a
 * language's do, and items spread over `USERS` users' namespaces. Item `i` depends only on the
 * seed and `i`, so the suite can name any item it wrote without keeping them.
 */
import { type Random, seededRandom } from "../../test/e2e/support/random";

export const CORPUS_SEED = 20_261_202;
export const USERS = 1_000;
export const VOCABULARY_SIZE = 5_000;
/** Zipf's exponent: about 1 for the words of a natural language. */
const ZIPF_S = 1;
/** A text ends with the word that reaches its drawn length, so it may run a few characters past it. */
const TEXT_CHARS = { min: 100, max: 500 } as const;
/** What an item records, with how often; a search's filter names one. */
export const KINDS = [
  ["fact", 0.3],
  ["note", 0.3],
  ["preference", 0.2],
  ["event", 0.15],
  ["task", 0.05],
] as const;
export type Kind = (typeof KINDS)[number][0];
/** A share of a user's items sits one level below the user's namespace. */
const EPISODE_SHARE = 0.25;
const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ru",
  "sa",
  "ti",
  "vo",
  "da",
  "fe",
  "gu",
  "ho",
  "ji",
  "pe",
  "zo",
  "ba",
  "cy",
  "wu",
  "xe",
  "qi",
  "an",
  "el",
  "or",
  "us",
  "im",
];

export interface CorpusItem {
  namespace: string[];
  key: string;
  value: { kind: Kind; topic: string; text: string; importance: number; source: "session" | "api" };
}

export interface SearchCase {
  prefix: string[];
  query: string;
  kind: Kind;
}

/** Words, most frequent first (rank 1 is the first). */
export const VOCABULARY: readonly string[] = makeVocabulary();
/** The running sum of the Zipf weights by rank, for drawing a word. */
const CUMULATIVE: readonly number[] = cumulativeZipf();

function makeVocabulary(): string[] {
  const random = seededRandom(CORPUS_SEED);
  const words = new Set<string>();
  while (words.size < VOCABULARY_SIZE) {
    let word = "";
    for (let n = random.between(2, 4); n > 0; n--) word += SYLLABLES[random.between(0, SYLLABLES.length - 1)];
    words.add(word);
  }
  return [...words];
}

function cumulativeZipf(): number[] {
  let sum = 0;
  return VOCABULARY.map((_, rank) => (sum += 1 / (rank + 1) ** ZIPF_S));
}

/** A word drawn by its frequency. */
function word(random: Random): string {
  const target = random.next() * CUMULATIVE[CUMULATIVE.length - 1]!;
  let low = 0;
  let high = CUMULATIVE.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (CUMULATIVE[mid]! < target) low = mid + 1;
    else high = mid;
  }
  return VOCABULARY[low]!;
}

function text(random: Random): string {
  const length = random.between(TEXT_CHARS.min, TEXT_CHARS.max);
  let out = word(random);
  while (out.length < length) out += ` ${word(random)}`;
  return out;
}

function kind(random: Random): Kind {
  let at = random.next();
  for (const [name, share] of KINDS) {
    if ((at -= share) < 0) return name;
  }
  return KINDS[0][0];
}

export function userNamespace(user: number): string[] {
  return ["users", `u_${String(user).padStart(4, "0")}`];
}

/** One generator per item and purpose, so item `i` is the same whatever else was drawn. */
function randomFor(purpose: number, i: number): Random {
  return seededRandom((Math.imul(CORPUS_SEED ^ purpose, 0x9e3779b1) + Math.imul(i + 1, 0x85ebca6b)) >>> 0);
}

export function corpusItem(i: number): CorpusItem {
  const random = randomFor(1, i);
  const user = random.between(0, USERS - 1);
  const namespace = random.next() < EPISODE_SHARE ? [...userNamespace(user), "episodes"] : userNamespace(user);
  return {
    namespace,
    key: `item-${i}`,
    value: {
      kind: kind(random),
      topic: word(random),
      text: text(random),
      importance: random.between(1, 5),
      source: random.next() < 0.7 ? "session" : "api",
    },
  };
}

/** The `n`-th search: a user's namespace, a query of 2–3 words drawn as the texts draw them, a kind to filter on. */
export function searchCase(n: number): SearchCase {
  const random = randomFor(2, n);
  const words = Array.from({ length: random.between(2, 3) }, () => word(random));
  return { prefix: userNamespace(random.between(0, USERS - 1)), query: words.join(" "), kind: kind(random) };
}
