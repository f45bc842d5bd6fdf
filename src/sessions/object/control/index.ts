/** The session object's controls, one module per concern, joined for its door (session-object.ts). */
export { boot } from "./boot";
export { budgetRaised, setLimits } from "./budget-wait";
export { create, createChild } from "./create";
export { approve, deny, submitToolOutput } from "./decisions";
export { erase, eraseIfExpired } from "./erase";
export { childReport, parentReport, treeTake } from "./family";
export { createFork, forkCopy } from "./fork";
export { enqueue, interrupt, requestOutcome, start } from "./messages";
export { MAX_TOOL_CALL_PAGE, messagePage, stepPage, toolCallPage } from "./pages";
export { policyChanged } from "./policy";
export { cancel, pause, resume, slotGranted } from "./run-state";
export { closeStreams, socketClosed } from "./streams";
export { wake } from "./wake";
