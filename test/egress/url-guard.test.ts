import { describe, expect, it } from "vitest";
import { checkUrl, describeRefusal, parseIPv4, parseIPv6, type UrlRefusal } from "../../src/egress/url-guard";

const strict = { allowPrivate: false };

const REFUSED: readonly [string, UrlRefusal][] = [
  // loopback in every IPv4 notation
  ["http://127.0.0.1", "loopback"],
  ["http://127.0.0.1:8080/admin", "loopback"],
  ["http://2130706433", "loopback"],
  ["http://0x7f.1", "loopback"],
  ["http://0x7f000001", "loopback"],
  ["http://0177.0.0.1", "loopback"],
  ["http://017700000001", "loopback"],
  ["http://127.1", "loopback"],
  ["http://127.0.1", "loopback"],
  ["http://0x7f.0.0.01", "loopback"],
  ["http://127.0.0.1.", "loopback"],
  ["http://%31%32%37.0.0.1", "loopback"],
  ["http://１２７.０.０.１", "loopback"],
  ["http://127.255.255.254", "loopback"],
  // loopback in IPv6, directly or embedding IPv4
  ["http://[::1]", "loopback"],
  ["http://[0:0:0:0:0:0:0:1]", "loopback"],
  ["http://[::ffff:127.0.0.1]", "loopback"],
  ["http://[::ffff:7f00:1]", "loopback"],
  ["http://[0:0:0:0:0:ffff:127.0.0.1]", "loopback"],
  ["http://[::127.0.0.1]", "loopback"],
  ["http://[::ffff:0:127.0.0.1]", "loopback"],
  ["http://[64:ff9b::7f00:1]", "loopback"],
  ["http://[2002:7f00:1::]", "loopback"],
  // loopback names
  ["http://localhost", "loopback"],
  ["http://localhost.", "loopback"],
  ["http://foo.localhost", "loopback"],
  ["http://LOCALHOST", "loopback"],
  ["http://a.b.localhost:3000/x", "loopback"],
  // unspecified
  ["http://0.0.0.0", "unspecified"],
  ["http://0", "unspecified"],
  ["http://0.1.2.3", "unspecified"],
  ["http://[::]", "unspecified"],
  // cloud metadata
  ["http://169.254.169.254/latest/meta-data", "metadata"],
  ["http://[::ffff:a9fe:a9fe]/latest/meta-data", "metadata"],
  ["http://2852039166/latest/meta-data", "metadata"],
  ["http://[fd00:ec2::254]", "metadata"],
  ["http://metadata.google.internal", "metadata"],
  ["http://metadata.google.internal./computeMetadata/v1/", "metadata"],
  ["http://metadata.goog", "metadata"],
  ["http://100.100.100.200", "metadata"],
  // private networks
  ["http://10.0.0.1", "private_address"],
  ["http://10.255.255.255", "private_address"],
  ["http://172.16.5.4", "private_address"],
  ["http://172.31.255.255", "private_address"],
  ["http://192.168.1.1", "private_address"],
  ["http://100.64.0.1", "private_address"],
  ["http://100.127.255.255", "private_address"],
  ["http://[fc00::1]", "private_address"],
  ["http://[fd12:3456:789a::1]", "private_address"],
  ["http://[fec0::1]", "private_address"],
  ["http://[::ffff:10.1.2.3]", "private_address"],
  ["http://[64:ff9b::10.0.0.1]", "private_address"],
  ["http://[64:ff9b:1::1]", "private_address"],
  ["http://[2002:c0a8:101::1]", "private_address"],
  // link-local
  ["http://169.254.1.1", "link_local"],
  ["http://[fe80::1]", "link_local"],
  ["http://[febf::1]", "link_local"],
  // multicast
  ["http://224.0.0.1", "multicast"],
  ["http://239.255.255.250", "multicast"],
  ["http://[ff02::1]", "multicast"],
  // reserved and special-purpose
  ["http://255.255.255.255", "reserved"],
  ["http://240.0.0.1", "reserved"],
  ["http://198.18.0.1", "reserved"],
  ["http://198.19.255.255", "reserved"],
  ["http://192.0.2.1", "reserved"],
  ["http://192.0.0.8", "reserved"],
  ["http://[2001:db8::1]", "reserved"],
  ["http://[2001::1]", "reserved"],
  ["http://[100::1]", "reserved"],
  ["http://[4000::1]", "reserved"],
  // local names
  ["http://printer.local", "local_name"],
  ["http://db.internal", "local_name"],
  ["http://router.home.arpa", "local_name"],
  ["http://nas.lan", "local_name"],
  ["http://intranet", "local_name"],
  ["http://intranet./wiki", "local_name"],
  // syntax, scheme, credentials, ports
  ["http://user:pass@example.com", "credentials_in_url"],
  ["http://user@example.com", "credentials_in_url"],
  ["https://:secret@example.com", "credentials_in_url"],
  ["ftp://example.com", "scheme_not_allowed"],
  ["file:///etc/passwd", "scheme_not_allowed"],
  ["javascript:alert(1)", "scheme_not_allowed"],
  ["data:text/plain,hello", "scheme_not_allowed"],
  ["gopher://example.com:70/", "scheme_not_allowed"],
  ["ws://example.com/socket", "scheme_not_allowed"],
  ["http://example.com:25", "bad_port"],
  ["http://example.com:22/", "bad_port"],
  ["http://example.com:0", "bad_port"],
  ["not a url", "invalid_url"],
  ["/relative/path", "invalid_url"],
  ["http://", "invalid_url"],
  ["http://[::1", "invalid_url"],
  ["http://1.2.3.4.5", "invalid_url"],
  ["http://256.0.0.1", "invalid_url"],
  ["http://example.com:99999", "invalid_url"],
];

const ALLOWED: readonly string[] = [
  "https://example.com",
  "http://93.184.216.34",
  "https://[2606:4700::1111]",
  "https://sub.example.co.uk:8443/path?q=1",
  "http://172.32.0.1",
  "http://172.15.255.255",
  "http://100.128.0.1",
  "http://100.63.255.255",
  "http://192.169.0.1",
  "http://169.253.255.255",
  "http://11.0.0.1",
  "https://1.1.1.1/dns-query",
  "http://8.8.8.8:8080",
  "http://[::ffff:8.8.8.8]",
  "http://[64:ff9b::808:808]",
  "http://[2002:808:808::1]",
  "https://localhost.example.com",
  "https://my-internal.example.com",
  "https://bücher.example/katalog",
  "https://example.com.",
  "https://api.example.com:443/v1?x=1#frag",
];

describe("checkUrl with private targets forbidden", () => {
  it.each(REFUSED)("refuses %s as %s", (url, reason) => {
    expect(checkUrl(url, strict)).toEqual({ ok: false, reason });
  });

  it.each(ALLOWED)("allows %s", (url) => {
    const result = checkUrl(url, strict);
    expect(result.ok).toBe(true);
  });

  it("returns the parsed URL with the normalised host", () => {
    const result = checkUrl("HTTPS://Sub.Example.COM:443/a/../b", strict);
    expect(result.ok && result.url.href).toBe("https://sub.example.com/b");
  });

  it("honours a narrower list of schemes", () => {
    expect(checkUrl("http://example.com", { allowPrivate: false, allowedSchemes: ["https"] })).toEqual({
      ok: false,
      reason: "scheme_not_allowed",
    });
    expect(checkUrl("https://example.com", { allowPrivate: false, allowedSchemes: ["https"] }).ok).toBe(true);
  });
});

describe("checkUrl with private targets allowed", () => {
  const lenient = { allowPrivate: true };

  it.each(["http://127.0.0.1:8787/x", "http://localhost:3000", "http://[::1]", "http://10.0.0.1", "http://intranet"])(
    "allows %s",
    (url) => {
      expect(checkUrl(url, lenient).ok).toBe(true);
    },
  );

  it.each([
    ["ftp://127.0.0.1", "scheme_not_allowed"],
    ["http://user:pass@127.0.0.1", "credentials_in_url"],
    ["http://[::1", "invalid_url"],
  ] as const)("still refuses %s as %s", (url, reason) => {
    expect(checkUrl(url, lenient)).toEqual({ ok: false, reason });
  });
});

describe("IP literal parsing", () => {
  it("reads every IPv4 notation into the same bytes", () => {
    for (const text of ["127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "127.1", "0x7F.0.0x0.1", "127.0.0.1."]) {
      expect([...(parseIPv4(text) ?? [])], text).toEqual([127, 0, 0, 1]);
    }
  });

  it("rejects IPv4 text that is out of range or malformed", () => {
    for (const text of ["256.0.0.1", "1.2.3.4.5", "4294967296", "08.0.0.1", "1..2", "", "0xg"]) {
      expect(parseIPv4(text), text).toBeNull();
    }
  });

  it("reads IPv6 with compression and an IPv4 tail", () => {
    expect([...(parseIPv6("::ffff:127.0.0.1") ?? [])]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 1]);
    expect([...(parseIPv6("fe80::1:2") ?? [])]).toEqual([0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")?.[15]).toBe(8);
  });

  it("rejects malformed IPv6", () => {
    for (const text of [
      "1:2:3:4:5:6:7",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      ":1",
      "1:::2",
      "::1.2.3",
      "::01.2.3.4",
      "fe80::1%eth0",
      "1.2.3.4::",
    ]) {
      expect(parseIPv6(text), text).toBeNull();
    }
  });
});

describe("describeRefusal", () => {
  it("names the address and why it is refused", () => {
    expect(describeRefusal("loopback", "http://127.0.0.1/x")).toBe("the address 127.0.0.1 is a loopback address");
    expect(describeRefusal("metadata", "http://[fd00:ec2::254]/")).toBe("the address [fd00:ec2::254] is a cloud metadata endpoint");
    expect(describeRefusal("local_name", "http://printer.local")).toContain("the host printer.local");
    expect(describeRefusal("scheme_not_allowed", "file:///etc/passwd")).toContain('"file"');
    expect(describeRefusal("bad_port", "http://example.com:25")).toBe("port 25 is not allowed");
  });
});
