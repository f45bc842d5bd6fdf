/** The a2a tool's wire, pure: the endpoint a card names, what it sends, and how each kind of answer reads. */
import { describe, expect, it } from "vitest";
import { cardEndpoint, readAnswer, sendRequest } from "../../../src/sessions/object/tools/a2a/protocol";

const rpc = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id: "1", result });

describe("cardEndpoint", () => {
  it("takes a 0.3 card's url, else a 1.0 card's first JSON-RPC interface", () => {
    expect(cardEndpoint(JSON.stringify({ url: "https://a.example/rpc" }))).toEqual({ ok: true, url: "https://a.example/rpc" });
    const interfaces = [
      { url: "https://a.example/grpc", protocolBinding: "GRPC" },
      { url: "https://a.example/jsonrpc", protocolBinding: "JSONRPC" },
    ];
    expect(cardEndpoint(JSON.stringify({ supportedInterfaces: interfaces }))).toEqual({ ok: true, url: "https://a.example/jsonrpc" });
    expect(cardEndpoint(JSON.stringify({ supportedInterfaces: [interfaces[0]] }))).toMatchObject({ ok: false });
    expect(cardEndpoint("<html>")).toMatchObject({ ok: false });
  });
});

describe("sendRequest", () => {
  it("sends the model's message as text, and an answer that is a JSON object as data on its task", () => {
    const first = JSON.parse(sendRequest("k", "k", '{"not":"parsed"}', null));
    expect(first).toMatchObject({ method: "message/send", params: { message: { parts: [{ kind: "text", text: '{"not":"parsed"}' }] } } });
    expect(first.params.message.taskId).toBeUndefined();
    // Answered at once: the call keeps the task before it waits on it.
    expect(first.params.configuration.blocking).toBe(false);
    const task = { taskId: "t1", contextId: "c1" };
    const answer = JSON.parse(sendRequest("k:2", "k:2", '{"tool_call_id":"toolu_1","output":"42"}', task));
    expect(answer.params.message).toMatchObject({
      taskId: "t1",
      contextId: "c1",
      parts: [{ kind: "data", data: { tool_call_id: "toolu_1" } }],
    });
    expect(JSON.parse(sendRequest("k:2", "k:2", "Paris", task)).params.message.parts).toEqual([{ kind: "text", text: "Paris" }]);
  });
});

describe("readAnswer", () => {
  it("reads a 1.0 task and message as a 0.3 one", () => {
    const done = {
      task: {
        id: "t",
        contextId: "c",
        status: { state: "TASK_STATE_COMPLETED" },
        artifacts: [{ parts: [{ text: "hi" }, { data: { n: 1 } }] }],
      },
    };
    expect(readAnswer(rpc(done))).toEqual({ kind: "result", output: 'hi\n{"n":1}', isError: false });
    expect(readAnswer(rpc({ message: { parts: [{ text: "direct" }] } }))).toEqual({ kind: "result", output: "direct", isError: false });
    expect(readAnswer(rpc({ kind: "message", parts: [{ kind: "text", text: "old" }] }))).toEqual({
      kind: "result",
      output: "old",
      isError: false,
    });
    const asks = { id: "t", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED", message: { parts: [{ text: "which?" }] } } };
    expect(readAnswer(rpc({ task: asks }))).toEqual({ kind: "input_required", question: "which?", taskId: "t", contextId: "c" });
  });

  it("gives an ended task, a JSON-RPC error and what is not A2A as errors, and a working task as pending", () => {
    expect(readAnswer(rpc({ kind: "task", id: "t", contextId: "c", status: { state: "rejected" } }))).toEqual({
      kind: "result",
      output: "the remote task ended rejected",
      isError: true,
    });
    const error = JSON.stringify({ jsonrpc: "2.0", id: "1", error: { code: -32001, message: "Task not found" } });
    expect(readAnswer(error)).toEqual({ kind: "result", output: "the remote agent answered error -32001: Task not found", isError: true });
    expect(readAnswer(rpc({ kind: "task", id: "t", contextId: "c", status: { state: "working" } }))).toEqual({
      kind: "pending",
      taskId: "t",
      contextId: "c",
      state: "working",
    });
    expect(readAnswer("not json")).toMatchObject({ kind: "invalid" });
    expect(readAnswer(rpc({ kind: "task", id: "t", status: { state: "dancing" } }))).toMatchObject({ kind: "invalid" });
  });
});
