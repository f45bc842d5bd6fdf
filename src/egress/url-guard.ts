/**
 * The URL guard: decides, without any I/O, whether a tool may send a request to a URL.
 * It refuses loopback, private, link-local, metadata and other special-purpose targets.
 *
 * Why it is only one layer: a Worker cannot resolve DNS before it fetches, so a public name
 * that resolves to a private address is not caught here. Outbound fetches leave through
 * Cloudflare's network, which does not reach the platform's own private addresses; this guard
 * is defence in depth on top of that, and `safe-fetch` applies it again on every redirect hop.
 * IP literals are parsed into bytes here (no library) so every notation maps to one verdict.
 */

export type UrlRefusal =
  | "invalid_url"
  | "scheme_not_allowed"
  | "credentials_in_url"
  | "unspecified"
  | "loopback"
  | "private_address"
  | "link_local"
  | "metadata"
  | "multicast"
  | "reserved"
  | "local_name"
  | "bad_port";

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: UrlRefusal };

export interface UrlGuardOptions {
  /** Local development and tests only: skips every address, name and port check. */
  allowPrivate: boolean;
  /** Scheme names without the colon; http and https when omitted. */
  allowedSchemes?: readonly string[];
}

export const DEFAULT_SCHEMES: readonly string[] = ["http", "https"];

type AddressVerdict = Exclude<UrlRefusal, "invalid_url" | "scheme_not_allowed" | "credentials_in_url" | "bad_port" | "local_name">;

interface Range {
  bytes: Uint8Array;
  prefix: number;
  verdict: AddressVerdict;
}

/** First match wins, so the single metadata addresses come before the ranges that hold them. */
const IPV4_RANGES: readonly Range[] = [
  v4("169.254.169.254/32", "metadata"), // AWS, GCP, Azure, OCI and most others
  v4("100.100.100.200/32", "metadata"), // Alibaba Cloud
  v4("168.63.129.16/32", "metadata"), // Azure host endpoint, public space but host-only meaning
  v4("0.0.0.0/8", "unspecified"), // "this network"; 0.0.0.0 reaches the local host on Linux
  v4("127.0.0.0/8", "loopback"),
  v4("10.0.0.0/8", "private_address"),
  v4("172.16.0.0/12", "private_address"),
  v4("192.168.0.0/16", "private_address"),
  v4("100.64.0.0/10", "private_address"), // carrier-grade NAT, private in practice
  v4("169.254.0.0/16", "link_local"),
  v4("192.0.0.0/24", "reserved"), // IETF protocol assignments
  v4("192.0.2.0/24", "reserved"), // documentation
  v4("198.51.100.0/24", "reserved"), // documentation
  v4("203.0.113.0/24", "reserved"), // documentation
  v4("198.18.0.0/15", "reserved"), // benchmarking
  v4("192.88.99.0/24", "reserved"), // former 6to4 relay anycast
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved"), // includes 255.255.255.255
];

/** Checked before the addresses that embed an IPv4 address, whose verdict is the IPv4 one. */
const IPV6_EXACT: readonly Range[] = [
  v6("fd00:ec2::254/128", "metadata"), // AWS metadata over IPv6
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
];

const IPV6_RANGES: readonly Range[] = [
  v6("fc00::/7", "private_address"), // unique local
  v6("fec0::/10", "private_address"), // deprecated site-local, still routed by some stacks
  v6("fe80::/10", "link_local"),
  v6("ff00::/8", "multicast"),
  v6("64:ff9b:1::/48", "private_address"), // local-use NAT64 (RFC 8215)
  v6("2001::/32", "reserved"), // Teredo hides the client address; nothing legitimate needs it here
  v6("2001:db8::/32", "reserved"), // documentation
  v6("100::/64", "reserved"), // discard-only
];

/** Only 2000::/3 is allocated for global unicast; anything else left over is not a real target. */
const GLOBAL_UNICAST_V6 = v6("2000::/3", "reserved");

/** Each prefix is followed by the offset of the IPv4 address it embeds. */
const IPV4_EMBEDDING: readonly { range: Range; offset: number }[] = [
  { range: v6("::ffff:0:0/96", "reserved"), offset: 12 }, // IPv4-mapped
  { range: v6("::/96", "reserved"), offset: 12 }, // IPv4-compatible (deprecated)
  { range: v6("::ffff:0:0:0/96", "reserved"), offset: 12 }, // IPv4-translated
  { range: v6("64:ff9b::/96", "reserved"), offset: 12 }, // well-known NAT64
  { range: v6("2002::/16", "reserved"), offset: 2 }, // 6to4
];

const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata", "instance-data"]);

/**
 * Suffixes that only resolve on a private resolver: mDNS, ICANN's private-use `.internal`,
 * home networks, and the names routers and corporate networks commonly hand out.
 */
const LOCAL_SUFFIXES: readonly string[] = ["local", "internal", "home.arpa", "localdomain", "lan", "home", "corp"];

/**
 * The Fetch standard's "bad ports": services (mail, shell, file transfer, IRC, ...) that an
 * HTTP request could be smuggled into. Browsers refuse them; so do we.
 */
const BAD_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117,
  119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636,
  989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/**
 * Checks a URL a tool wants to reach. With `allowPrivate`, only syntax, scheme and user-info
 * are checked. User-info is always refused: credentials in a URL end up in transcripts and logs.
 */
export function checkUrl(raw: string, options: UrlGuardOptions): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "invalid_url" };
  }
  const scheme = url.protocol.slice(0, -1);
  if (!(options.allowedSchemes ?? DEFAULT_SCHEMES).includes(scheme)) return { ok: false, reason: "scheme_not_allowed" };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "credentials_in_url" };
  if (url.hostname === "") return { ok: false, reason: "invalid_url" };
  if (options.allowPrivate) return { ok: true, url };

  const hostVerdict = classifyHost(url.hostname);
  if (hostVerdict !== null) return { ok: false, reason: hostVerdict };
  if (url.port !== "" && BAD_PORTS.has(Number(url.port))) return { ok: false, reason: "bad_port" };
  return { ok: true, url };
}

/** The verdict for a URL hostname (IPv6 in brackets, as `URL.hostname` gives it); null if public. */
export function classifyHost(hostname: string): UrlRefusal | null {
  const host = hostname.toLowerCase();
  if (host.startsWith("[")) {
    const bytes = host.endsWith("]") ? parseIPv6(host.slice(1, -1)) : null;
    return bytes ? classifyIPv6(bytes) : "invalid_url";
  }
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (endsInNumber(name)) {
    const bytes = parseIPv4(name);
    return bytes ? classifyIPv4(bytes) : "invalid_url";
  }
  if (name === "" || name.endsWith(".")) return "invalid_url";
  if (METADATA_NAMES.has(name)) return "metadata";
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback";
  // A single label can only resolve through a search domain on a private resolver.
  if (!name.includes(".")) return "local_name";
  if (LOCAL_SUFFIXES.some((suffix) => name.endsWith(`.${suffix}`))) return "local_name";
  return null;
}

/**
 * A sentence a model or a tenant can act on, e.g. "the address 127.0.0.1 is a loopback address".
 * It names only what the caller already sent, so it reveals nothing about the platform.
 */
export function describeRefusal(reason: UrlRefusal, raw: string, schemes: readonly string[] = DEFAULT_SCHEMES): string {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // only invalid_url gets here, and it needs no URL parts
  }
  const host = url?.hostname ?? "";
  const isLiteral = host.startsWith("[") || (endsInNumber(host.replace(/\.$/, "")) && parseIPv4(host) !== null);
  const subject = isLiteral ? `the address ${host}` : `the host ${host}`;
  switch (reason) {
    case "invalid_url":
      return "the URL is not valid";
    case "scheme_not_allowed":
      return `the scheme "${url?.protocol.slice(0, -1) ?? ""}" is not allowed; use ${schemes.join(" or ")}`;
    case "credentials_in_url":
      return "URLs with a user name or password are not allowed";
    case "bad_port":
      return `port ${url?.port ?? ""} is not allowed`;
    case "unspecified":
      return `${subject} is an unspecified address`;
    case "loopback":
      return isLiteral ? `${subject} is a loopback address` : `${subject} names the loopback interface`;
    case "private_address":
      return `${subject} is a private network address`;
    case "link_local":
      return `${subject} is a link-local address`;
    case "metadata":
      return `${subject} is a cloud metadata endpoint`;
    case "multicast":
      return `${subject} is a multicast address`;
    case "reserved":
      return `${subject} is in a reserved or special-purpose range`;
    case "local_name":
      return `${subject} is a local network name that only resolves inside a private network`;
    default: {
      const unreachable: never = reason;
      return unreachable;
    }
  }
}

export function classifyIPv4(bytes: Uint8Array): AddressVerdict | null {
  return IPV4_RANGES.find((range) => inRange(bytes, range))?.verdict ?? null;
}

export function classifyIPv6(bytes: Uint8Array): AddressVerdict | null {
  const exact = IPV6_EXACT.find((range) => inRange(bytes, range));
  if (exact) return exact.verdict;
  const embedding = IPV4_EMBEDDING.find(({ range }) => inRange(bytes, range));
  if (embedding) return classifyIPv4(bytes.subarray(embedding.offset, embedding.offset + 4));
  const range = IPV6_RANGES.find((candidate) => inRange(bytes, candidate));
  if (range) return range.verdict;
  return inRange(bytes, GLOBAL_UNICAST_V6) ? null : "reserved";
}

/**
 * An IPv4 literal in any notation the URL standard accepts: one to four parts, each decimal,
 * octal (leading 0) or hex (0x), the last part filling the remaining bytes. Null if not one.
 */
export function parseIPv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const value = parseIPv4Part(part);
    if (value === null) return null;
    numbers.push(value);
  }
  const last = numbers.pop();
  if (last === undefined || numbers.some((value) => value > 255)) return null;
  if (last >= 256 ** (4 - numbers.length)) return null;
  let value = last;
  numbers.forEach((part, index) => {
    value += part * 256 ** (3 - index);
  });
  return new Uint8Array([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
}

function parseIPv4Part(part: string): number | null {
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    radix = 16;
    if (digits === "") return 0; // the URL standard reads a bare "0x" as zero
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1);
    radix = 8;
  }
  const pattern = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!pattern.test(digits)) return null;
  return parseInt(digits, radix);
}

/** The URL standard's test for "this host must be read as IPv4": its last label is numeric. */
function endsInNumber(name: string): boolean {
  const last = name.split(".").pop() ?? "";
  return /^[0-9]+$/.test(last) || /^0x[0-9a-f]*$/i.test(last);
}

/** An IPv6 address without brackets or zone, with an optional dotted IPv4 tail. Null if not one. */
export function parseIPv6(text: string): Uint8Array | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const compressed = halves.length === 2;
  const left = parseGroups(halves[0] ?? "", !compressed);
  const right = compressed ? parseGroups(halves[1] ?? "", true) : [];
  if (!left || !right) return null;
  const count = left.length + right.length;
  if (compressed ? count > 7 : count !== 8) return null;
  const groups = [...left, ...new Array<number>(8 - count).fill(0), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 255;
  });
  return bytes;
}

/** 16-bit groups of one side of "::"; a dotted IPv4 tail, where allowed, gives two groups. */
function parseGroups(text: string, quadAllowedAtEnd: boolean): number[] | null {
  if (text === "") return [];
  const pieces = text.split(":");
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (quadAllowedAtEnd && index === pieces.length - 1 && piece.includes(".")) {
      const quad = parseDottedQuad(piece);
      if (!quad) return null;
      groups.push(((quad[0] ?? 0) << 8) | (quad[1] ?? 0), ((quad[2] ?? 0) << 8) | (quad[3] ?? 0));
    } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
      groups.push(parseInt(piece, 16));
    } else {
      return null;
    }
  }
  return groups;
}

/** Inside IPv6 only the strict form is valid: four decimal parts, no leading zeros. */
function parseDottedQuad(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9][0-9]{0,2})$/.test(part))) return null;
  const numbers = parts.map(Number);
  return numbers.every((value) => value <= 255) ? new Uint8Array(numbers) : null;
}

function inRange(bytes: Uint8Array, range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  const whole = Math.floor(range.prefix / 8);
  for (let index = 0; index < whole; index++) if (bytes[index] !== range.bytes[index]) return false;
  const rest = range.prefix % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[whole] ?? 0) & mask) === ((range.bytes[whole] ?? 0) & mask);
}

function v4(cidr: string, verdict: AddressVerdict): Range {
  return parseRange(cidr, verdict, parseIPv4);
}

function v6(cidr: string, verdict: AddressVerdict): Range {
  return parseRange(cidr, verdict, parseIPv6);
}

function parseRange(cidr: string, verdict: AddressVerdict, parse: (text: string) => Uint8Array | null): Range {
  const [address = "", prefix = ""] = cidr.split("/");
  const bytes = parse(address);
  if (!bytes) throw new Error(`bad range in the URL guard table: ${cidr}`);
  return { bytes, prefix: Number(prefix), verdict };
}
