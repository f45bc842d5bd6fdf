/**
 * The parts of `@ag-ui/core` and `@ag-ui/encoder` that cost to load, in a module only ever
 * imported dynamically (`loadAgUiSdk`): the core's schemas are built when it loads, which no
 * request but an AG-UI run should pay for.
 */
import { EventEncoder } from "@ag-ui/encoder";

export { RunAgentInputSchema } from "@ag-ui/core/schemas";

/** Server-Sent Events only: `HttpAgent` asks for them, and the protobuf framing is not served. */
export const encoder = new EventEncoder();
