/**
 * Schemas of the session routes, one module per part: content and input, tools, the Session,
 * request bodies, messages and tool calls, parameters. Caps on caller-given text are named
 * beside their schemas with their units; the body limit bounds the request as a whole on top.
 */
export { SessionSummaryPageSchema } from "../admin/schemas";
export * from "./content-schemas";
export * from "./tool-schemas";
export * from "./session-schemas";
export * from "./request-schemas";
export * from "./history-schemas";
export * from "./param-schemas";
