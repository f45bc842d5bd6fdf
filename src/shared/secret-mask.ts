/**
 * Masking of secret values in text that leaves the platform's hands: every form of a secret a
 * program produces without trying (the value itself in any letter case, base64 in both alphabets,
 * padded or not, and inside a larger base64 blob, hex, percent-encoding, JSON escapes, HTML
 * character references, the UTF-16 bytes in base64 and hex, `%uXXXX`, full-width letters) is
 * found in one pass over the text and replaced by the mask.
 *
 * The search ignores letter case (ASCII and full-width) and whitespace on both sides, and the
 * escaped line breaks of a JSON string (`\n`, `\r`, `\t`), so a form upper- or lowercased,
 * wrapped over lines (MIME base64, a hex dump with spaces), split across text blocks joined by a
 * newline or over the lines of a JSON string is found like the plain one. A match covers what it
 * skipped inside it.
 *
 * Cost: one rolling hash over the text, whatever the number of forms (a Rabin-Karp search on the
 * shortest form's length); only a window whose hash is one of a form's opening is compared.
 */
import { encodeBase64 } from "./base64";

export const MASKED_VALUE = "********";
/** Shorter values are not searched for at all: they would match ordinary words. */
export const MIN_MASKED_CHARS = 6;
/**
 * Shorter values are searched for as themselves only, not in encodings: the encoded forms of a
 * few bytes are short runs of letters and digits that ordinary base64 or hex would hit by chance.
 */
export const MIN_ENCODED_CHARS = 8;
/**
 * The shortest value masked in every log line of the isolate, whichever tenant's line it is: a
 * shorter one (a word like `session`) would blank parts of other tenants' lines. Outputs are
 * masked with their own session's values from `MIN_MASKED_CHARS` up.
 */
export const MIN_LOG_MASKED_CHARS = 16;
/** An encoded form (a base64 core, most of all) shorter than this is not searched for. */
const MIN_FORM_CHARS = 8;

export interface SecretEncoder {
  name: string;
  encode(secret: string, bytes: Uint8Array): string[];
}

/**
 * The encoder table: every form searched for besides the value itself. Letter case is not
 * listed: the search ignores it, so `hex` finds upper-case hex and `exact` the value upper-cased.
 */
export const ENCODERS: readonly SecretEncoder[] = [
  { name: "base64", encode: (_, bytes) => base64Forms(bytes, false) },
  { name: "base64url", encode: (_, bytes) => base64Forms(bytes, true) },
  { name: "hex", encode: (_, bytes) => [hex(bytes), [...bytes].map((byte) => `\\x${hex([byte])}`).join("")] },
  {
    name: "percent",
    encode: (secret, bytes) => [
      encodeURIComponent(secret),
      encodeURIComponent(secret).replace(/%20/g, "+"),
      encodeURI(secret),
      [...bytes].map((byte) => `%${hex([byte])}`).join(""),
    ],
  },
  {
    name: "html",
    encode: (secret) => {
      const named = [...secret].map((char) => HTML_NAMED[char] ?? char).join("");
      const decimal = [...secret].map((char) => `&#${char.codePointAt(0)};`).join("");
      const hexRef = [...secret].map((char) => `&#x${char.codePointAt(0)!.toString(16)};`).join("");
      // The apostrophe has three common references; each markup escaper picks one.
      return [named, named.replace(/&#39;/g, "&#x27;"), named.replace(/&#39;/g, "&apos;"), decimal, hexRef];
    },
  },
  {
    name: "utf16",
    encode: (secret) => {
      const le = utf16(secret, true);
      const be = utf16(secret, false);
      return [
        ...base64Forms(le, false),
        ...base64Forms(le, true),
        ...base64Forms(be, false),
        ...base64Forms(be, true),
        hex(le),
        hex(be),
        // JavaScript's `escape()`: the UTF-16 units of anything outside Latin-1 as %uXXXX, written here for every unit.
        [...secret].map((char) => [...char].map((unit) => `%u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")).join(""),
      ];
    },
  },
  {
    name: "fullwidth",
    // Printable ASCII as its full-width form (U+FF01 to U+FF5E), the space as the ideographic one.
    encode: (secret) => [
      [...secret]
        .map((char) => (char === " " ? "\u3000" : char > " " && char <= "~" ? String.fromCharCode(char.charCodeAt(0) + 0xfee0) : char))
        .join(""),
    ],
  },
  {
    name: "json",
    encode: (secret) => {
      const once = JSON.stringify(secret).slice(1, -1);
      const unicode = [...secret]
        .map((char) => [...char].map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""))
        .join("");
      return [once, once.replace(/\//g, "\\/"), JSON.stringify(once).slice(1, -1), unicode];
    },
  },
];

/** What an HTML or XML escaper writes for the characters markup reserves. */
const HTML_NAMED: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
});

/** The UTF-16 code units of `text` as bytes, little- or big-endian, without a byte-order mark. */
function utf16(text: string, littleEndian: boolean): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < text.length; i++) view.setUint16(i * 2, text.charCodeAt(i), littleEndian);
  return bytes;
}

/** Every form of one secret searched for (before case folding), the value first. None for a value too short to mask. */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_MASKED_CHARS) return [];
  const forms = [secret];
  if (secret.length >= MIN_ENCODED_CHARS) {
    const bytes = new TextEncoder().encode(secret);
    for (const encoder of ENCODERS) forms.push(...encoder.encode(secret, bytes).filter((form) => form.length >= MIN_FORM_CHARS));
  }
  return [...new Set(forms)];
}

/**
 * The base64 text of `bytes` on its own (padded and not), and the part of it that stays the same
 * whatever bytes come before and after, for each of the three places the value can start in a
 * 3-byte group: a value inside a larger base64 blob shows exactly one of those three cores.
 */
function base64Forms(bytes: Uint8Array, urlSafe: boolean): string[] {
  const alphabet = (text: string) => (urlSafe ? text.replace(/\+/g, "-").replace(/\//g, "_") : text);
  const padded = encodeBase64(bytes);
  const forms = [padded, padded.replace(/=+$/, "")];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = new Uint8Array(offset + bytes.length);
    shifted.set(bytes, offset);
    const text = encodeBase64(shifted);
    // Characters carry 6 bits each: keep those whose bits all come from the value.
    forms.push(text.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6)));
  }
  return forms.map(alphabet);
}

function hex(bytes: Iterable<number>): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

/** ASCII and full-width letters to lower case, one code unit for one, so positions in the text stay as they are. */
function fold(code: number): number {
  if (code >= 65 && code <= 90) return code + 32;
  return code >= 0xff21 && code <= 0xff3a ? code + 32 : code;
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0x3000;
}

/** `n`, `r`, `t`: after a backslash, a line break or tab escaped in a JSON string, skipped like whitespace. */
function isEscapedBreak(code: number): boolean {
  return code === 110 || code === 114 || code === 116;
}

/** How many code units at `i` the search skips: whitespace one, an escaped line break two, anything else none. */
function skipAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (isSpace(code)) return 1;
  return code === 92 && i + 1 < text.length && isEscapedBreak(text.charCodeAt(i + 1)) ? 2 : 0;
}

/** A form as it is searched for: folded, without what the search skips. */
function searchable(form: string): Uint16Array {
  const codes: number[] = [];
  for (let i = 0; i < form.length;) {
    const skip = skipAt(form, i);
    if (skip > 0) {
      i += skip;
      continue;
    }
    codes.push(fold(form.charCodeAt(i)));
    i++;
  }
  return Uint16Array.from(codes);
}

const BASE = 0x01000193;

function hashOf(codes: ArrayLike<number>, length: number): number {
  let h = 0;
  for (let i = 0; i < length; i++) h = (Math.imul(h, BASE) + codes[i]!) | 0;
  return h;
}

/** The hash window: every form is at least this long, so one window length serves every set, and sets can be added. */
const WINDOW = MIN_MASKED_CHARS;
/** BASE to the power `WINDOW - 1`: what the character leaving the window weighed. */
const OUT_WEIGHT = (() => {
  let weight = 1;
  for (let i = 1; i < WINDOW; i++) weight = Math.imul(weight, BASE);
  return weight;
})();

/** The masker of one set of secrets: built once, then used on every text. */
export class SecretMasker {
  static readonly none = new SecretMasker([]);

  /** Forms by the hash of their first `WINDOW` characters. */
  readonly #byHash = new Map<number, Uint16Array[]>();
  /** The forms as searched for, to take each once (forms that differ only in case or whitespace are one). */
  readonly #known = new Set<string>();
  /** A first filter on the hash's high 16 bits, cheaper than a map look-up per character. */
  readonly #filter = new Uint32Array(2048);

  constructor(secrets: readonly string[]) {
    this.add(secrets);
  }

  /** Searches for these secrets too. The shared `none` never changes. */
  add(secrets: readonly string[]): void {
    if (this === SecretMasker.none && secrets.length > 0) throw new Error("the empty masker cannot take secrets");
    for (const form of secrets.flatMap(secretForms)) {
      const codes = searchable(form);
      const known = String.fromCharCode(...codes);
      if (codes.length < WINDOW || this.#known.has(known)) continue;
      this.#known.add(known);
      const h = hashOf(codes, WINDOW);
      const list = this.#byHash.get(h);
      if (list) list.push(codes);
      else this.#byHash.set(h, [codes]);
      this.#filter[h >>> 21]! |= 1 << ((h >>> 16) & 31);
    }
  }

  get empty(): boolean {
    return this.#byHash.size === 0;
  }

  /** `text` with every form of every secret replaced by the mask. */
  mask(text: string): string {
    const ranges = this.#find(text);
    if (ranges.length === 0) return text;
    let out = "";
    let at = 0;
    for (const [start, end] of ranges) {
      out += text.slice(at, start) + MASKED_VALUE;
      at = end;
    }
    return out + text.slice(at);
  }

  /** A copy of a JSON value with every string in it (object keys too) masked. */
  maskJson<T>(value: T): T {
    if (this.empty) return value;
    return this.#maskValue(value) as T;
  }

  #maskValue(value: unknown): unknown {
    if (typeof value === "string") return this.mask(value);
    if (Array.isArray(value)) return value.map((item) => this.#maskValue(item));
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // Defined, not assigned: a key named `__proto__` stays an own property.
      Object.defineProperty(out, this.mask(key), { value: this.#maskValue(item), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  /** The spans to mask, in order and merged: [start, end) in `text`. */
  #find(text: string): [number, number][] {
    const window = WINDOW;
    if (this.empty || text.length < window) return [];
    const filter = this.#filter;
    const outWeight = OUT_WEIGHT;
    // The last `window` non-space characters, folded, in a ring: the one leaving the window is taken off the hash.
    const ring = new Uint16Array(window);
    let filled = 0;
    let head = 0;
    let h = 0;
    const ranges: [number, number][] = [];
    for (let i = 0; i < text.length; i++) {
      let code = text.charCodeAt(i);
      if (code <= 32 && (code === 32 || (code >= 9 && code <= 13))) continue;
      if (code === 92 && i + 1 < text.length && isEscapedBreak(text.charCodeAt(i + 1))) {
        i++;
        continue;
      }
      if (code >= 65 && code <= 90) code += 32;
      else if (code >= 0x3000) {
        if (code === 0x3000) continue;
        if (code >= 0xff21 && code <= 0xff3a) code += 32;
      }
      if (filled === window) h = (h - Math.imul(ring[head]!, outWeight)) | 0;
      else filled++;
      h = (Math.imul(h, BASE) + code) | 0;
      ring[head] = code;
      if (++head === window) head = 0;
      if (filled < window || (filter[h >>> 21]! & (1 << ((h >>> 16) & 31))) === 0) continue;
      const candidates = this.#byHash.get(h);
      if (!candidates) continue;
      const start = windowStart(text, i, window);
      let end = -1;
      for (const codes of candidates) end = Math.max(end, matchAt(text, start, codes));
      if (end < 0) continue;
      const last = ranges[ranges.length - 1];
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else ranges.push([start, end]);
    }
    return ranges;
  }
}

/** Where the window of `window` searched characters that ends at `last` starts: walked back only on a hash hit, which is rare. */
function windowStart(text: string, last: number, window: number): number {
  let i = last;
  for (let left = window - 1; left > 0;) {
    const code = text.charCodeAt(--i);
    if (isSpace(code)) continue;
    // The letter of an escaped line break: its backslash goes with it.
    if (isEscapedBreak(code) && i > 0 && text.charCodeAt(i - 1) === 92 && skipAt(text, i - 1) === 2) {
      i--;
      continue;
    }
    left--;
  }
  return i;
}

/** The end of `codes` found at `start` (what the search skips, skipped), or -1. */
function matchAt(text: string, start: number, codes: Uint16Array): number {
  let i = start;
  for (let k = 0; k < codes.length; k++, i++) {
    for (let skip = skipAt(text, i); skip > 0 && i < text.length; skip = skipAt(text, i)) i += skip;
    if (i >= text.length || fold(text.charCodeAt(i)) !== codes[k]) return -1;
  }
  return i;
}

/**
 * The maskers of the secret sets this isolate used last, by their sorted values. Every log line
 * is masked with all of them (`maskForLogs`), so a secret in use here cannot reach a log line
 * whatever code wrote it. Bounded: the oldest set is dropped past the limit, and a set in use is
 * made the newest each time its masker is asked for.
 */
const RECENT_SETS = 256;
const recent = new Map<string, SecretMasker>();
/** Every recent set's forms in one masker: grown as sets come, rebuilt once as many sets have gone. */
let forLogs = new SecretMasker([]);
let dropped = 0;

/** The masker of `secrets`, built once per set and remembered for the logs. */
export function maskerOf(secrets: readonly string[]): SecretMasker {
  const usable = [...new Set(secrets.filter((secret) => secret.length >= MIN_MASKED_CHARS))].sort();
  if (usable.length === 0) return SecretMasker.none;
  const key = usable.join("\0");
  let masker = recent.get(key);
  if (masker) {
    recent.delete(key);
  } else {
    masker = new SecretMasker(usable);
    const logged = forLogsOnly(usable);
    if (logged.length > 0) forLogs.add(logged);
    if (recent.size >= RECENT_SETS) {
      recent.delete(recent.keys().next().value!);
      // A dropped set stays in the log masker (masking more is harmless) until as many have gone as are kept.
      if (++dropped >= RECENT_SETS) {
        forLogs = new SecretMasker(forLogsOnly([...recent.keys(), key].flatMap((kept) => kept.split("\0"))));
        dropped = 0;
      }
    }
  }
  recent.set(key, masker);
  return masker;
}

function forLogsOnly(secrets: readonly string[]): string[] {
  return secrets.filter((secret) => secret.length >= MIN_LOG_MASKED_CHARS);
}

/**
 * A log line's string value with every form of every secret this isolate used lately masked.
 * Applied to values only, never to a line's keys or its JSON: no value a tenant chose can
 * rename a field of, or break, another tenant's line.
 */
export function maskForLogs(value: string): string {
  return forLogs.mask(value);
}
