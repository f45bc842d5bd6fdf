/**
 * The detectors of personal data and secrets: one RE2 pattern each (linear time in the text,
 * whatever it holds), and a check in code of what a pattern alone cannot say (a Luhn or mod-97
 * checksum, the count of digits, that a match is not part of a longer run of letters or digits).
 */
import { RE2JS } from "re2js";
import type { RedactionDetector } from "./settings";

/** A span of the text to replace, `[start, end)` in UTF-16 units. */
export interface Span {
  start: number;
  end: number;
}

export interface Detector {
  name: RedactionDetector;
  pattern: RE2JS;
  /** A string every match holds: a text without it is not searched (an address needs its `@`). */
  needs?: string;
  /** The span to replace for a candidate, or null when the candidate is not one. */
  accept(text: string, start: number, end: number): Span | null;
}

const EMAIL = String.raw`[A-Za-z0-9._%+\-']+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,63}`;

/**
 * International numbers (`+` or `00` and a country code, then groups), North American numbers
 * with their separators (area code and exchange open with 2 to 9), and national numbers that open
 * with a trunk `0` and have a separator (French ones in pairs). A run of digits with no `+` and no
 * separator is never a phone number here: it reads as a year, a count or an id far more often.
 */
const PHONE = [
  String.raw`\+[1-9]\d{0,3}(?:[ .\-]?(?:\(\d{1,4}\)|\d{1,6})){1,7}`,
  String.raw`00[1-9]\d{0,3}[ .\-](?:\(\d{1,4}\)|\d{1,6})(?:[ .\-]?(?:\(\d{1,4}\)|\d{1,6})){0,6}`,
  String.raw`\([2-9]\d{2}\) ?[2-9]\d{2}[ .\-]\d{4}`,
  String.raw`[2-9]\d{2}[ .\-][2-9]\d{2}[ .\-]\d{4}`,
  String.raw`0[1-9](?:[ .\-]\d{2}){4}`,
  String.raw`0\d{1,4}[ \-/]\d{3,8}(?:[ \-]\d{2,4}){0,3}`,
].join("|");

/** A card opens with 2 to 6 (Mastercard, Amex, Visa, Discover, JCB, UnionPay): epoch milliseconds (17…) and most ids do not. */
const CREDIT_CARD = [
  String.raw`[2-6]\d{12,18}`,
  String.raw`[2-6]\d{3}(?:[ \-]\d{4}){2}[ \-]\d{1,4}(?:[ \-]\d{1,3})?`,
  String.raw`3\d{3}[ \-]\d{6}[ \-]\d{4,5}`,
].join("|");

const IBAN = String.raw`[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}`;

/** The countries that issue IBANs (the SWIFT registry): a lowercase id that passes mod 97 by chance rarely opens with one. */
const IBAN_COUNTRIES = new Set(
  (
    "AD AE AL AT AZ BA BE BG BH BI BR BY CH CR CY CZ DE DJ DK DO EE EG ES FI FK FO FR GB GE GI GL GR GT HN HR HU IE IL IQ IS IT " +
    "JO KW KZ LB LC LI LT LU LV LY MC MD ME MK MN MR MT MU NI NL NO OM PK PL PS PT QA RO RS RU SA SC SD SE SI SK SM SO ST SV TL " +
    "TN TR UA VA VG XK YE"
  ).split(" "),
);

/**
 * Key shapes: AWS access key ids, OpenAI, Anthropic and Stripe keys, Google API keys, GitHub and
 * Slack tokens, JWTs, PEM private keys, bearer tokens.
 */
const SECRET = [
  String.raw`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`,
  String.raw`\bsk-(?:ant-)?[A-Za-z0-9_\-]{20,}`,
  String.raw`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`,
  String.raw`\bAIza[0-9A-Za-z_\-]{35}`,
  String.raw`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{22,}`,
  String.raw`\bxox[abposr]-[A-Za-z0-9\-]{10,}`,
  String.raw`\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}`,
  // A token cut by the end of what is read (a tool output read to its cut and the overlap) is a secret still.
  String.raw`\beyJ[A-Za-z0-9_\-]{5,}(?:\.[A-Za-z0-9_\-]*){0,2}$`,
  // A block cut before its end line is a secret still: it runs to the end of the text.
  String.raw`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`,
  String.raw`\b[Bb]earer +[A-Za-z0-9\-._~+/]{16,}=*`,
].join("|");

export const DETECTORS: Readonly<Record<RedactionDetector, Detector>> = {
  email: {
    name: "email",
    pattern: RE2JS.compile(EMAIL),
    needs: "@",
    accept: (text, start, end) => trimEmail(text, start, end),
  },
  phone: { name: "phone", pattern: RE2JS.compile(PHONE), accept: acceptPhone },
  credit_card: { name: "credit_card", pattern: RE2JS.compile(CREDIT_CARD), accept: acceptCard },
  iban: { name: "iban", pattern: RE2JS.compile(IBAN), accept: acceptIban },
  secret: { name: "secret", pattern: RE2JS.compile(SECRET), accept: (_text, start, end) => ({ start, end }) },
};

/** A letter, a digit or `_` (ids join their parts with it: `ord_4111…`). */
function isAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** Whether the candidate stands alone: no letter, digit or `_` touches it on either side. */
function standsAlone(text: string, start: number, end: number): boolean {
  return !(start > 0 && isAlnum(text.charCodeAt(start - 1))) && !(end < text.length && isAlnum(text.charCodeAt(end)));
}

function digitsOf(text: string): string {
  return text.replace(/\D/g, "");
}

/**
 * An address never ends with a dot or a hyphen (a sentence's full stop is not part of it), nor
 * opens with a quote or a dot (`'alice@example.com'`); an apostrophe inside it is kept (`O'Neil`).
 */
function trimEmail(text: string, start: number, end: number): Span {
  while (end > start && (text[end - 1] === "." || text[end - 1] === "-")) end--;
  while (start < end && (text[start] === "'" || text[start] === ".")) start++;
  return { start, end };
}

/**
 * The candidate, or the longest of its prefixes that ends before a separator, that `fits`: a
 * pattern also takes numbers written after the one it found (`4111 … 1111 12/27`, `+1 415 555
 * 0100 2024`). At most `MAX_SHORTER` prefixes are tried, so the cost stays linear.
 */
function longestFitting(text: string, start: number, end: number, separators: string, fits: (candidate: string) => boolean): Span | null {
  let stop = end;
  for (let tries = 0; tries <= MAX_SHORTER; tries++) {
    if (standsAlone(text, start, stop) && fits(text.slice(start, stop))) return { start, end: stop };
    let before = stop - 1;
    while (before > start && !separators.includes(text[before]!)) before--;
    // Separators in a row (`) `) end the prefix at the first of them.
    while (before > start && separators.includes(text[before - 1]!)) before--;
    if (before <= start) return null;
    stop = before;
  }
  return null;
}

const MAX_SHORTER = 8;

function acceptPhone(text: string, start: number, end: number): Span | null {
  return longestFitting(text, start, end, " .-(", phoneFits);
}

function phoneFits(candidate: string): boolean {
  const digits = digitsOf(candidate).length;
  // A North American number is 11 digits with its country code; elsewhere 8 to 15 (E.164).
  if (candidate.startsWith("+1") || candidate.startsWith("001")) return digits - (candidate.startsWith("+") ? 0 : 2) === 11;
  if (candidate.startsWith("+")) return digits >= 8 && digits <= 15;
  if (candidate.startsWith("00")) return digits - 2 >= 8 && digits - 2 <= 15;
  // 555-0100 style separators must agree (123-456.7890 is rather a pair of numbers), and a national number has 9 to 12 digits.
  const separators = new Set(candidate.replace(/[\d()]/g, ""));
  if (separators.size > 1 && !candidate.startsWith("(")) return false;
  return digits >= 9 && digits <= 12;
}

function acceptCard(text: string, start: number, end: number): Span | null {
  return longestFitting(text, start, end, " -", (candidate) => {
    const digits = digitsOf(candidate);
    return cardLengthFits(digits) && luhnValid(digits);
  });
}

/**
 * Whether the number's length is one its network issues for its first digits: Visa 16 or 19,
 * Mastercard (51–55, 2221–2720) 16, Amex (34, 37) 15, JCB (35) 16 to 19, Diners (30, 36, 38, 39)
 * 14 to 19, Discover, UnionPay and Maestro (5, 6) 16 to 19. An IMEI (15 digits, 35…), an EAN-13
 * and most ids of 13 to 19 digits do not fit.
 */
function cardLengthFits(digits: string): boolean {
  const n = digits.length;
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if (digits[0] === "4") return n === 16 || n === 19;
  if (two >= 51 && two <= 55) return n === 16;
  if (four >= 2221 && four <= 2720) return n === 16;
  if (two === 34 || two === 37) return n === 15;
  if (two === 35) return n >= 16 && n <= 19;
  if (two === 30 || two === 36 || two === 38 || two === 39) return n >= 14 && n <= 19;
  if (digits[0] === "5" || digits[0] === "6") return n >= 16 && n <= 19;
  return false;
}

/** The Luhn checksum of a card number: every second digit from the right doubled. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * The candidate, or the longest of its prefixes that ends before a space, whose checksum holds:
 * the pattern also takes a word in capitals written after the number (`… 00 OK`).
 */
function acceptIban(text: string, start: number, end: number): Span | null {
  if (!IBAN_COUNTRIES.has(text.slice(start, start + 2).toUpperCase())) return null;
  let stop = end;
  for (;;) {
    if (standsAlone(text, start, stop) && ibanValid(text.slice(start, stop).replace(/ /g, "").toUpperCase())) return { start, end: stop };
    const space = text.lastIndexOf(" ", stop - 1);
    if (space <= start + 4) return null;
    stop = space;
  }
}

/** ISO 13616: 15 to 34 characters, the first four moved to the end, letters as 10–35, the number mod 97 is 1. */
export function ibanValid(iban: string): boolean {
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    rest = (value > 9 ? rest * 100 + value : rest * 10 + value) % 97;
  }
  return rest === 1;
}
