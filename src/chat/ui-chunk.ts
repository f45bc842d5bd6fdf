/** One chunk of the AI SDK's UI message stream, as the chat adapters write it (ui-chunks.ts, ui-sources.ts). */
export type UiChunk = { type: string } & Record<string, unknown>;
