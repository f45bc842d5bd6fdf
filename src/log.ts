/**
 * Structured log lines of the gateway and the Durable Objects: one JSON object per event. The
 * gateway's carry the request id, so an answer a caller reports can be traced; the session object's carry
 * the tenant and session. Never logs credentials or bodies, and every line passes through one
 * redaction: the forms of any secret this isolate used lately (MCP header values) are masked in
 * every string value, whichever field, error message or stack carried them (values only: the
 * line's keys and its JSON are never touched). Nothing in src/ writes to the console but
 * this function.
 */
import { maskForLogs } from "./shared/secret-mask";

export type LogLevel = "info" | "warn" | "error";

export function log(level: LogLevel, event: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, event, ...fields }, (_key, value: unknown) =>
    typeof value === "string" ? maskForLogs(value) : value,
  );
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** The parts of an unknown thrown value worth logging. */
export function describeError(error: unknown): { name: string; message: string; stack?: string } {
  if (error instanceof Error) return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  return { name: "NonError", message: String(error) };
}
