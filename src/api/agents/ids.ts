/** A path's agent id: one that cannot be an agent's is answered 404 without a lookup. */
import { AGENT_NOT_FOUND } from "../../agents/client";
import { isAgentId } from "../../agents/refs";
import { ApiError } from "../errors";

export function knownAgentId(id: string): string {
  if (!isAgentId(id)) throw new ApiError("not_found", AGENT_NOT_FOUND);
  return id;
}
