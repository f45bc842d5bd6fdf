/** The name rule shared by the model providers' tool APIs. */
export const MAX_TOOL_NAME_CHARS = 64;
export const TOOL_NAME_PATTERN = new RegExp(`^[a-zA-Z0-9_-]{1,${MAX_TOOL_NAME_CHARS}}$`);
