/**
 * A strict decoder of OTLP/HTTP JSON trace exports against the official protocol definitions
 * (test/fixtures/otlp), by reflection only (no generated code, so it runs in workerd too). It
 * follows the OTLP JSON rules on top of the protobuf JSON mapping: field names in lowerCamelCase,
 * trace and span ids as hex, 64-bit integers as decimal strings or numbers, enums as numbers.
 * Any field the definitions do not have, or a value of the wrong kind, fails the decode.
 */
import protobuf from "protobufjs";
import common from "../fixtures/otlp/common.proto?raw";
import resource from "../fixtures/otlp/resource.proto?raw";
import trace from "../fixtures/otlp/trace.proto?raw";
import service from "../fixtures/otlp/trace_service.proto?raw";

const root = new protobuf.Root();
for (const text of [common, resource, trace, service]) protobuf.parse(text, root);
root.resolveAll();

const REQUEST = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
/** OTLP JSON: these bytes fields are hex of this many bytes, not base64. */
const HEX_BYTES: Record<string, number> = { traceId: 16, spanId: 8, parentSpanId: 8 };

export interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  status?: { code?: number; message?: string };
}

/** Every span of an export body, attributes as a plain record; throws on anything the definitions refuse. */
export function decodeTraceExport(body: string): DecodedSpan[] {
  const decoded = decodeMessage(REQUEST, JSON.parse(body), "$") as {
    resourceSpans?: { scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
  };
  const spans: DecodedSpan[] = [];
  for (const rs of decoded.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? [])
        spans.push({ ...(span as unknown as DecodedSpan), attributes: attributesOf(span.attributes as KeyValue[] | undefined) });
    }
  }
  return spans;
}

type KeyValue = { key: string; value?: Record<string, unknown> };

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, anyValue(value ?? {})]));
}

function anyValue(value: Record<string, unknown>): unknown {
  if ("stringValue" in value) return value.stringValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("boolValue" in value) return value.boolValue;
  if ("arrayValue" in value) return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(anyValue);
  throw new Error(`an attribute value of an unexpected kind: ${JSON.stringify(value)}`);
}

function decodeMessage(type: protobuf.Type, json: unknown, path: string): Record<string, unknown> {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error(`${path}: ${type.name} must be an object`);
  const out: Record<string, unknown> = {};
  const oneofs = new Map<string, string>();
  for (const [key, value] of Object.entries(json)) {
    const field = type.fields[key];
    if (!field) throw new Error(`${path}.${key}: ${type.name} has no such field`);
    if (field.partOf) {
      const taken = oneofs.get(field.partOf.name);
      if (taken) throw new Error(`${path}: ${key} and ${taken} are one of ${field.partOf.name}`);
      oneofs.set(field.partOf.name, key);
    }
    if (value === null || value === undefined) continue;
    if (field.repeated) {
      if (!Array.isArray(value)) throw new Error(`${path}.${key}: must be a list`);
      out[key] = value.map((item, i) => decodeValue(field, item, `${path}.${key}[${i}]`));
    } else {
      out[key] = decodeValue(field, value, `${path}.${key}`);
    }
  }
  return out;
}

function decodeValue(field: protobuf.Field, value: unknown, path: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return decodeMessage(resolved, value, path);
  if (resolved instanceof protobuf.Enum) {
    if (typeof value === "number" && Object.values(resolved.values).includes(value)) return value;
    if (typeof value === "string" && value in resolved.values) return resolved.values[value];
    throw new Error(`${path}: not a ${resolved.name}`);
  }
  switch (field.type) {
    case "string":
      if (typeof value !== "string") throw new Error(`${path}: must be a string`);
      return value;
    case "bool":
      if (typeof value !== "boolean") throw new Error(`${path}: must be a boolean`);
      return value;
    case "double":
    case "float":
      if (typeof value !== "number") throw new Error(`${path}: must be a number`);
      return value;
    case "bytes": {
      const bytes = HEX_BYTES[field.name];
      if (bytes === undefined) throw new Error(`${path}: unexpected bytes field`);
      if (typeof value !== "string" || !new RegExp(`^[0-9a-f]{${bytes * 2}}$`).test(value))
        throw new Error(`${path}: must be ${bytes} bytes of lower-case hex`);
      return value;
    }
    case "int64":
    case "uint64":
    case "fixed64":
    case "sfixed64":
    case "sint64":
      if (!(typeof value === "string" ? /^-?\d+$/.test(value) : Number.isSafeInteger(value)))
        throw new Error(`${path}: must be a 64-bit integer`);
      return String(value);
    default:
      if (!Number.isInteger(value)) throw new Error(`${path}: must be an integer`);
      return value;
  }
}
