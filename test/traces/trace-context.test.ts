/** W3C `traceparent` parsing and the span ids derived from tool calls: pure, table-tested. */
import { describe, expect, it } from "vitest";
import { derivedSpanId, formatTraceparent, parseTraceparent } from "../../src/traces/trace-context";
import { isRetryableStatus, tracesUrl } from "../../src/traces/exporter";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

describe("parseTraceparent", () => {
  it.each([
    [`00-${TRACE}-${SPAN}-01`, { traceId: TRACE, spanId: SPAN, sampled: true }],
    [`00-${TRACE}-${SPAN}-00`, { traceId: TRACE, spanId: SPAN, sampled: false }],
    [` 00-${TRACE}-${SPAN}-01 `, { traceId: TRACE, spanId: SPAN, sampled: true }],
    // A later version may add fields after the flags.
    [`01-${TRACE}-${SPAN}-03-more`, { traceId: TRACE, spanId: SPAN, sampled: true }],
  ])("reads %s", (value, expected) => {
    expect(parseTraceparent(value)).toEqual(expected);
  });

  it.each([
    [undefined],
    [""],
    ["not-a-traceparent"],
    [`ff-${TRACE}-${SPAN}-01`],
    [`00-${TRACE}-${SPAN}-01-extra`],
    [`00-${"0".repeat(32)}-${SPAN}-01`],
    [`00-${TRACE}-${"0".repeat(16)}-01`],
    [`00-${TRACE.toUpperCase()}-${SPAN}-01`],
    [`00-${TRACE.slice(1)}-${SPAN}-01`],
  ])("starts a new trace for %s", (value) => {
    expect(parseTraceparent(value)).toBeNull();
  });

  it("formats what it reads", () => {
    expect(formatTraceparent(parseTraceparent(`00-${TRACE}-${SPAN}-01`)!)).toBe(`00-${TRACE}-${SPAN}-01`);
  });
});

describe("derivedSpanId", () => {
  it("is 16 hex digits, the same for the same call, different for another call or trace", () => {
    const id = derivedSpanId(TRACE, "tool/call_1");
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(derivedSpanId(TRACE, "tool/call_1")).toBe(id);
    expect(derivedSpanId(TRACE, "tool/call_2")).not.toBe(id);
    expect(derivedSpanId(SPAN.repeat(2), "tool/call_1")).not.toBe(id);
  });
});

describe("the export's rules", () => {
  it("posts to the signal path under the endpoint", () => {
    expect(tracesUrl("https://otel.example.com")).toBe("https://otel.example.com/v1/traces");
    expect(tracesUrl("https://otel.example.com/otlp/")).toBe("https://otel.example.com/otlp/v1/traces");
  });

  it.each([
    [500, true],
    [502, true],
    [503, true],
    [429, true],
    [408, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [413, false],
  ])("retries a %i: %s", (status, retry) => {
    expect(isRetryableStatus(status)).toBe(retry);
  });
});
