/**
 * The forms a careless or hostile MCP server sends a credential back in, written with web APIs
 * only, so the MCP test server (Node) sends them and the workerd tests look for them.
 */

const bytesOf = (text: string) => new TextEncoder().encode(text);
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const hexOf = (bytes: Uint8Array) => [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
/** UTF-16 code units as bytes, little- or big-endian. */
const utf16 = (text: string, littleEndian: boolean) =>
  new Uint8Array(
    [...text].flatMap((char) =>
      littleEndian ? [char.charCodeAt(0) & 0xff, char.charCodeAt(0) >> 8] : [char.charCodeAt(0) >> 8, char.charCodeAt(0) & 0xff],
    ),
  );
const urlSafe = (text: string) => text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** The credentials of `<scheme> <credentials>`, or the value itself. */
export function withoutScheme(value: string): string {
  return value.replace(/^[A-Za-z][\w.+-]*\s+/, "");
}

/** Each form of `value` and of its credentials alone, labelled. */
export function leakedForms(value: string): [label: string, form: string][] {
  const forms: [string, string][] = [];
  for (const [which, secret] of [
    ["value", value],
    ["token", withoutScheme(value)],
  ] as const) {
    const bytes = bytesOf(secret);
    const add = (label: string, form: string) => forms.push([`${which} ${label}`, form]);
    add("as is", secret);
    add("lower", secret.toLowerCase());
    add("upper", secret.toUpperCase());
    add("base64", base64(bytes));
    add("base64 unpadded", base64(bytes).replace(/=+$/, ""));
    add("base64url", urlSafe(base64(bytes)));
    for (let offset = 0; offset < 3; offset++) {
      const blob = base64(new Uint8Array([...bytesOf("ab".slice(0, offset)), ...bytes, ...bytesOf(`;exp=${offset}`)]));
      add(`in a base64 blob at offset ${offset}`, blob);
      add(`in a base64url blob at offset ${offset}`, urlSafe(blob));
    }
    add("base64 wrapped", base64(bytes).replace(/(.{12})/g, "$1\r\n"));
    add("hex", hexOf(bytes));
    add("HEX", hexOf(bytes).toUpperCase());
    add("hex dump", hexOf(bytes).replace(/(..)/g, "$1 "));
    add("percent", encodeURIComponent(secret));
    add("percent every byte", [...bytes].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""));
    add("json", JSON.stringify(secret));
    add("json unicode", [...secret].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""));
    add("html named", secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"));
    add("html decimal", [...secret].map((char) => `&#${char.charCodeAt(0)};`).join(""));
    add("html hex", [...secret].map((char) => `&#x${char.charCodeAt(0).toString(16)};`).join(""));
    add("base64 utf-16le", base64(utf16(secret, true)));
    add("base64 utf-16be", base64(utf16(secret, false)));
    add("base64url utf-16le", urlSafe(base64(utf16(secret, true))));
    add("hex utf-16be", hexOf(utf16(secret, false)));
    add("percent-u", [...secret].map((char) => `%u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""));
    add("fullwidth", secret.replace(/[!-~]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0)).replace(/ /g, "\u3000"));
    add("split over JSON lines", `${secret.slice(0, secret.length >> 1)}\\n${secret.slice(secret.length >> 1)}`);
  }
  return forms;
}

/**
 * What must not be found, and how to look: each form without its whitespace, and of a blob only
 * the characters made from the secret's bits alone (the ones around it carry the blob's own bytes).
 */
export function needles(value: string): string[] {
  return leakedForms(value).map(([label, form]) => {
    const bare = form.replace(/\s+/g, "").toLowerCase();
    return label.includes("blob") ? bare.slice(4, -12) : bare;
  });
}

/** The needles found in `text`, looked for without letter case or whitespace. */
export function leaksIn(text: string, value: string): string[] {
  const haystack = text.replace(/\s+/g, "").toLowerCase();
  return needles(value).filter((needle) => haystack.includes(needle));
}
