/** The agent reference a session body gives (`agt_…`, `agt_…@7`, `agt_…@production`): its shape alone. Pure. */

export const MAX_ALIAS_CHARS = 32;
/** `agt_…` with an optional `@<version>` or `@<alias>`. */
export const AGENT_REF_PATTERN = /^agt_[A-Za-z0-9_-]{20,60}(@([1-9][0-9]{0,8}|(?![0-9]+$)[a-z0-9_-]{1,32}))?$/;
export const MAX_AGENT_REF_CHARS = 4 + 60 + 1 + MAX_ALIAS_CHARS;
