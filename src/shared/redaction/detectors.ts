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

const EMAIL = String.raw`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,63}`;

/**
 * International numbers (`+` and a country code, then groups), North American numbers with their
 * separators and national numbers that open with a trunk `0` and have a separator. A run of
 * digits with no `+` and no separator is never a phone number here: it reads as a year, a count
 * or an id far more often.
 */
const PHONE = [
  String.raw`\+[1-9]\d{0,3}(?:[ .\-]?(?:\(\d{1,4}\)|\d{1,6})){1,7}`,
  String.raw`\(\d{3}\) ?\d{3}[ .\-]\d{4}`,
  String.raw`\d{3}[ .\-]\d{3}[ .\-]\d{4}`,
  String.raw`0\d{1,4}[ \-/]\d{3,8}(?:[ \-]\d{2,4}){0,3}`,
].join("|");

/** A card opens with 2 to 6 (Mastercard, Amex, Visa, Discover, JCB, UnionPay): epoch milliseconds (17…) and most ids do not. */
const CREDIT_CARD = [
  String.raw`[2-6]\d{12,18}`,
  String.raw`[2-6]\d{3}(?:[ \-]\d{4}){2}[ \-]\d{1,4}(?:[ \-]\d{1,3})?`,
  String.raw`3\d{3}[ \-]\d{6}[ \-]\d{4,5}`,
].join("|");

const IBAN = String.raw`[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}`;

/** Key shapes: AWS access key ids, OpenAI and Anthropic keys, GitHub and Slack tokens, JWTs, PEM private keys, bearer tokens. */
const SECRET = [
  String.raw`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`,
  String.raw`\bsk-(?:ant-)?[A-Za-z0-9_\-]{20,}`,
  String.raw`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{22,}`,
  String.raw`\bxox[abposr]-[A-Za-z0-9\-]{10,}`,
  String.raw`\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}`,
  // A block cut before its end line is a secret still: it runs to the end of the text.
  String.raw`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`,
  String.raw`\b[Bb]earer +[A-Za-z0-9\-._~+/]{16,}=*`,
].join("|");

export const DETECTORS: Readonly<Record<RedactionDetector, Detector>> = {
  email: {
    name: "email",
    pattern: RE2JS.compile(EMAIL),
    needs: "@",
    accept: (text, start, end) => ({ start, end: trimDots(text, start, end) }),
  },
  phone: { name: "phone", pattern: RE2JS.compile(PHONE), accept: acceptPhone },
  credit_card: { name: "credit_card", pattern: RE2JS.compile(CREDIT_CARD), accept: acceptCard },
  iban: { name: "iban", pattern: RE2JS.compile(IBAN), accept: acceptIban },
  secret: { name: "secret", pattern: RE2JS.compile(SECRET), accept: (_text, start, end) => ({ start, end }) },
};

function isAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Whether the candidate stands alone: no letter or digit touches it on either side. */
function standsAlone(text: string, start: number, end: number): boolean {
  return !(start > 0 && isAlnum(text.charCodeAt(start - 1))) && !(end < text.length && isAlnum(text.charCodeAt(end)));
}

function digitsOf(text: string): string {
  return text.replace(/\D/g, "");
}

/** An address never ends with a dot or a hyphen (a sentence's full stop is not part of it). */
function trimDots(text: string, start: number, end: number): number {
  while (end > start && (text[end - 1] === "." || text[end - 1] === "-")) end--;
  return end;
}

function acceptPhone(text: string, start: number, end: number): Span | null {
  if (!standsAlone(text, start, end)) return null;
  const candidate = text.slice(start, end);
  const digits = digitsOf(candidate).length;
  if (candidate.startsWith("+")) return digits >= 8 && digits <= 15 ? { start, end } : null;
  // 555-0100 style separators must agree (123-456.7890 is rather a pair of numbers), and a national number has 9 to 12 digits.
  const separators = new Set(candidate.replace(/[\d()]/g, ""));
  if (separators.size > 1 && !candidate.startsWith("(")) return null;
  return digits >= 9 && digits <= 12 ? { start, end } : null;
}

function acceptCard(text: string, start: number, end: number): Span | null {
  if (!standsAlone(text, start, end)) return null;
  const digits = digitsOf(text.slice(start, end));
  return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? { start, end } : null;
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
  let stop = end;
  for (;;) {
    if (standsAlone(text, start, stop) && ibanValid(text.slice(start, stop).replace(/ /g, ""))) return { start, end: stop };
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
