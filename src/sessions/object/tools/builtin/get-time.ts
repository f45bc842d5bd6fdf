/** The built-in `get_time` tool: the current UTC time, optionally in an IANA time zone. */
import type { Tool } from "../tool";

export const getTimeTool: Tool = {
  kind: "builtin",
  requiresApproval: false,
  atMostOnce: false,
  instant: true,
  definition: {
    name: "get_time",
    description: "Returns the current date and time as ISO 8601 (UTC), and in the given IANA time zone when one is passed.",
    input_schema: {
      type: "object",
      properties: { timezone: { type: "string", description: "An IANA time zone such as Europe/Paris" } },
      additionalProperties: false,
    },
  },
  async run(input) {
    const now = new Date();
    const timezone = (input as { timezone?: string } | null)?.timezone;
    if (!timezone) return { output: now.toISOString(), isError: false };
    try {
      const local = new Intl.DateTimeFormat("en-GB", { timeZone: timezone, dateStyle: "full", timeStyle: "long" }).format(now);
      return { output: `${now.toISOString()} (${timezone}: ${local})`, isError: false };
    } catch {
      return { output: `unknown time zone: ${timezone}`, isError: true };
    }
  },
};
