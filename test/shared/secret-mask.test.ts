/** The secret masker: its encoder table, the search (case, whitespace, embedding), short values, and the logs. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "../../src/log";
import { ENCODERS, MASKED_VALUE, maskerOf, SecretMasker, secretForms } from "../../src/shared/secret-mask";

const SECRET = 'sk-live/Tq9+x7Zr~42 "ok"';
const bytes = (text: string) => new TextEncoder().encode(text);
const b64 = (data: Uint8Array) => btoa(String.fromCharCode(...data));
const hex = (data: Uint8Array) => [...data].map((byte) => byte.toString(16).padStart(2, "0")).join("");

/** UTF-16 code units as bytes, by hand: low byte first, or high byte first. */
const utf16le = (text: string) => new Uint8Array([...text].flatMap((c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8]));
const utf16be = (text: string) => new Uint8Array([...text].flatMap((c) => [c.charCodeAt(0) >> 8, c.charCodeAt(0) & 0xff]));

/** Each encoder's forms of SECRET, written out by other means than the masker's. */
const TABLE: Record<string, string[]> = {
  base64: [b64(bytes(SECRET)), b64(bytes(SECRET)).replace(/=+$/, "")],
  base64url: [b64(bytes(SECRET)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")],
  hex: [hex(bytes(SECRET)), [...bytes(SECRET)].map((byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("")],
  percent: [
    encodeURIComponent(SECRET),
    encodeURIComponent(SECRET).replace(/%20/g, "+"),
    [...bytes(SECRET)].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join(""),
  ],
  html: [
    SECRET.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"),
    [...SECRET].map((c) => `&#${c.charCodeAt(0)};`).join(""),
    [...SECRET].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(""),
  ],
  utf16: [
    b64(utf16le(SECRET)),
    b64(utf16le(SECRET)).replace(/=+$/, ""),
    b64(utf16be(SECRET)),
    b64(utf16be(SECRET)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
    hex(utf16le(SECRET)),
    hex(utf16be(SECRET)),
    [...SECRET].map((c) => `%u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
  ],
  fullwidth: [SECRET.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x21 + 0xff01)).replace(/ /g, "\u3000")],
  json: [
    JSON.stringify(SECRET).slice(1, -1),
    JSON.stringify(JSON.stringify(SECRET).slice(1, -1)).slice(1, -1),
    [...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
  ],
};

describe("the encoder table", () => {
  it("has one row per encoding, each giving the forms written out here", () => {
    expect(ENCODERS.map((encoder) => encoder.name)).toEqual(Object.keys(TABLE));
    for (const encoder of ENCODERS) {
      const forms = encoder.encode(SECRET, bytes(SECRET));
      for (const form of TABLE[encoder.name]!) expect(forms, `${encoder.name}: ${form}`).toContain(form);
    }
  });

  it("gives the value first, then every encoding's forms, none shorter than 8 characters", () => {
    const forms = secretForms(SECRET);
    expect(forms[0]).toBe(SECRET);
    for (const form of Object.values(TABLE).flat()) expect(forms).toContain(form);
    expect(forms.every((form) => form.length >= 8)).toBe(true);
  });

  it("searches for a value of 6 or 7 characters as itself only, and for a shorter one not at all", () => {
    expect(secretForms("abcdefg")).toEqual(["abcdefg"]);
    expect(secretForms("abcde")).toEqual([]);
    const masker = maskerOf(["abcdefg", "xyz12"]);
    expect(masker.mask(`abcdefg ABCDEFG ${btoa("abcdefg")} ${hex(bytes("abcdefg"))} xyz12`)).toBe(
      `${MASKED_VALUE} ${MASKED_VALUE} ${btoa("abcdefg")} ${hex(bytes("abcdefg"))} xyz12`,
    );
  });
});

describe("masking text", () => {
  const masker = new SecretMasker([SECRET]);
  const masked = (text: string) => masker.mask(text);

  it("masks every form, in any letter case, and keeps the text around it", () => {
    for (const form of [SECRET, ...Object.values(TABLE).flat()]) {
      for (const cased of [form, form.toLowerCase(), form.toUpperCase()])
        // Punctuation after: a UTF-16 form's last base64 characters can be an `A` of the value's zero bits, which a following "a" would extend.
        expect(masked(`before ${cased} | after`), cased).toBe(`before ${MASKED_VALUE} | after`);
    }
  });

  it("finds the value inside a larger base64 blob at each of the three byte offsets, in both alphabets", () => {
    for (let before = 0; before < 6; before++) {
      for (const after of [0, 1, 2, 7]) {
        const blob = new Uint8Array([
          ...crypto.getRandomValues(new Uint8Array(before)),
          ...bytes(SECRET),
          ...crypto.getRandomValues(new Uint8Array(after)),
        ]);
        const standard = b64(blob);
        const urlSafe = standard.replace(/\+/g, "-").replace(/\//g, "_");
        for (const text of [standard, urlSafe]) {
          const out = masked(text);
          expect(out, `${before}+${after}`).toContain(MASKED_VALUE);
          // What is left is at most the characters that mix the value's bits with its neighbours'.
          expect(out.length - MASKED_VALUE.length, `${before}+${after}`).toBeLessThanOrEqual(text.length - (b64(bytes(SECRET)).length - 6));
        }
      }
    }
  });

  it("finds a form wrapped over lines or split by whitespace, as text blocks joined by a newline are", () => {
    const base64 = b64(bytes(SECRET));
    expect(masked(`${base64.slice(0, 10)}\n${base64.slice(10)}`)).toBe(MASKED_VALUE);
    expect(masked(`${SECRET.slice(0, 9)}\n${SECRET.slice(9)} tail`)).toBe(`${MASKED_VALUE} tail`);
    expect(masked(hex(bytes(SECRET)).replace(/(..)/g, "$1 ").trim())).toBe(MASKED_VALUE);
  });

  it("finds a value split over the lines of a JSON string, or a form in any of them, by its escaped line breaks", () => {
    expect(masked(`"${SECRET.slice(0, 9)}\\n${SECRET.slice(9)}" tail`)).toBe(`"${MASKED_VALUE}" tail`);
    expect(masked(`${SECRET.slice(0, 5)}\\r\\n${SECRET.slice(5, 12)}\\t${SECRET.slice(12)}`)).toBe(MASKED_VALUE);
    const base64 = b64(bytes(SECRET));
    expect(masked(`${base64.slice(0, 12)}\\n${base64.slice(12)}`)).toBe(MASKED_VALUE);
  });

  it("finds the UTF-16 forms inside a larger blob, with a byte-order mark in front", () => {
    for (const [bom, encode] of [
      [[0xff, 0xfe], utf16le],
      [[0xfe, 0xff], utf16be],
    ] as const) {
      const blob = new Uint8Array([...bom, ...encode(SECRET), ...encode(" and more")]);
      expect(masked(b64(blob))).toContain(MASKED_VALUE);
    }
  });

  it("finds the full-width form in either case, and an HTML page's reference to it", () => {
    const wide = TABLE.fullwidth![0]!;
    for (const form of [wide, wide.toUpperCase(), wide.toLowerCase()]) expect(masked(`<p>${form}</p>`)).toBe(`<p>${MASKED_VALUE}</p>`);
    expect(masked(`<input value="${TABLE.html![0]}">`)).toBe(`<input value="${MASKED_VALUE}">`);
  });

  it("leaves text without a secret as it is, the same string", () => {
    const text = "nothing to see here: sk-live/Tq9+x7Z is a prefix, not the value";
    expect(masked(text)).toBe(text);
    expect(new SecretMasker([]).mask(SECRET)).toBe(SECRET);
  });

  it("masks every string of a JSON value, keys included", () => {
    const value = {
      description: `uses ${btoa(SECRET)}`,
      properties: { [hex(bytes(SECRET))]: { type: "string" } },
      list: [SECRET.toUpperCase(), 3],
    };
    expect(masker.maskJson(value)).toEqual({
      description: `uses ${MASKED_VALUE}`,
      properties: { [MASKED_VALUE]: { type: "string" } },
      list: [MASKED_VALUE, 3],
    });
  });
});

describe("log lines", () => {
  afterEach(() => vi.restoreAllMocks());

  it("masks the forms of a secret this isolate used in every log line, whatever field carries them", () => {
    const secret = `tok-${crypto.randomUUID()}`;
    maskerOf([secret]);
    const lines: string[] = [];
    for (const level of ["log", "warn", "error"] as const)
      vi.spyOn(console, level).mockImplementation((line: string) => void lines.push(line));
    log("info", "a", { note: `got ${secret.toUpperCase()}` });
    log("warn", "b", { error: { message: `x ${btoa(secret)} y` } });
    log("error", "c", { stack: encodeURIComponent(hex(bytes(secret))) });
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toContain(MASKED_VALUE);
      expect(line.toLowerCase()).not.toContain(secret.slice(4, 20));
      expect(line).not.toContain(btoa(secret).slice(0, 20));
      expect(line).not.toContain(hex(bytes(secret)).slice(0, 20));
    }
  });

  it("masks values only, so no tenant's header value can rename a field of another's line or break its JSON", () => {
    const punctuation = `","level":"info","tenant_id":"x${crypto.randomUUID()}`;
    maskerOf(["session_id", 'info","event', punctuation]);
    const lines: string[] = [];
    for (const level of ["log", "warn", "error"] as const)
      vi.spyOn(console, level).mockImplementation((line: string) => void lines.push(line));
    log("info", "session_started", { tenant_id: "acme", session_id: "ses_1", note: `carried ${punctuation} along` });
    expect(lines).toHaveLength(1);
    // Short values are left to each session's own masker: in the shared log masker they would
    // match ordinary words of every tenant's lines.
    expect(JSON.parse(lines[0]!)).toEqual({
      level: "info",
      event: "session_started",
      tenant_id: "acme",
      session_id: "ses_1",
      note: `carried ${MASKED_VALUE} along`,
    });
  });
});
