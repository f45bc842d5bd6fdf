/** The caps a session's create body is checked against that the session object enforces too: one value for both. */

/** The length cap of one user message's text; longer input belongs in a file or a tool. */
export const MAX_INPUT_CHARS = 200_000;

/**
 * Tools offered in one run, all kinds together: the most that OpenAI's API takes, and more than
 * a model chooses among well. A server that offers more is narrowed with `allowed_tools`.
 */
export const MAX_RUN_TOOLS = 128;

/** More tools than this make a prompt no model handles well. */
export const MAX_TOOLS_PER_SESSION = 64;
/** The longest an approval may be waited for: a month, far past any review process. */
export const MAX_APPROVAL_TIMEOUT_SECONDS = 30 * 24 * 60 * 60;
