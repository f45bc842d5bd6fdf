/** The name rule shared by the model providers' tool APIs. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
