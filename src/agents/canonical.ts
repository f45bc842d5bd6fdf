/** Kept where the agents import it; the rule itself is shared (scorers compare values by it too). */
export { canonicalJson } from "../shared/canonical-json";
