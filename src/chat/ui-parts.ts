/**
 * Folds the chunks `ChatTurn` sends into the parts of a UI message, as the `ai` package's reader
 * (`readUIMessageStream`) does on the page, for the chunk kinds the turn sends. Pure. The history
 * route builds its messages this way, so they are the messages the page built live;
 * `test/chat/ui-history.test.ts` holds this fold equal to the package's own reader.
 */
import type { UiChunk } from "./ui-chunks";

/** One part of a UI message (`UIMessagePart` of the `ai` package). */
export type UiPart = { type: string } & Record<string, unknown>;

interface ToolPart extends UiPart {
  type: "dynamic-tool";
  toolCallId: string;
  state: string;
}

export class UiPartsFold {
  readonly parts: UiPart[] = [];
  readonly #open = new Map<string, UiPart>();

  add(chunks: UiChunk[]): void {
    for (const chunk of chunks) this.#add(chunk);
  }

  #add(chunk: UiChunk): void {
    switch (chunk.type) {
      case "start-step":
        this.parts.push({ type: "step-start" });
        return;
      case "text-start":
      case "reasoning-start": {
        const kind = chunk.type === "text-start" ? "text" : "reasoning";
        const part: UiPart =
          kind === "text" ? { type: kind, text: "", state: "streaming" } : { type: kind, id: chunk.id, text: "", state: "streaming" };
        this.#open.set(`${kind}:${String(chunk.id)}`, part);
        this.parts.push(part);
        return;
      }
      case "text-delta":
      case "reasoning-delta": {
        const part = this.#open.get(`${chunk.type.slice(0, -"-delta".length)}:${String(chunk.id)}`);
        if (part) part.text = String(part.text) + String(chunk.delta);
        return;
      }
      case "text-end":
      case "reasoning-end": {
        const key = `${chunk.type.slice(0, -"-end".length)}:${String(chunk.id)}`;
        const part = this.#open.get(key);
        if (part) part.state = "done";
        this.#open.delete(key);
        return;
      }
      case "tool-input-start":
      case "tool-input-available": {
        const state = chunk.type === "tool-input-start" ? "input-streaming" : "input-available";
        const part = this.#tool(String(chunk.toolCallId));
        const fields = {
          toolName: chunk.toolName,
          state,
          input: chunk.type === "tool-input-start" ? undefined : chunk.input,
          ...(chunk.providerExecuted === undefined ? {} : { providerExecuted: chunk.providerExecuted }),
        };
        if (part) Object.assign(part, fields);
        else this.parts.push({ type: "dynamic-tool", toolCallId: chunk.toolCallId, ...fields });
        return;
      }
      case "tool-approval-request":
        this.#update(chunk, { state: "approval-requested", approval: { id: chunk.approvalId } });
        return;
      case "tool-approval-response": {
        const part = this.#byApproval(String(chunk.approvalId));
        if (part)
          Object.assign(part, {
            state: "approval-responded",
            approval: { ...(part.approval as object), id: chunk.approvalId, approved: chunk.approved },
          });
        return;
      }
      case "tool-output-available":
        this.#update(chunk, { state: "output-available", output: chunk.output });
        return;
      case "tool-output-error":
        this.#update(chunk, { state: "output-error", errorText: chunk.errorText });
        return;
      case "tool-output-denied":
        this.#update(chunk, { state: "output-denied" });
        return;
      case "source-url":
      case "source-document": {
        const { type, ...fields } = chunk;
        this.parts.push({ type, ...fields });
        return;
      }
      default:
        // start, finish-step, finish, error, abort: no part of their own.
        return;
    }
  }

  #tool(toolCallId: string): ToolPart | undefined {
    for (let i = this.parts.length - 1; i >= 0; i--) {
      const part = this.parts[i]! as ToolPart;
      if (part.type === "dynamic-tool" && part.toolCallId === toolCallId) return part;
    }
    return undefined;
  }

  #byApproval(approvalId: string): ToolPart | undefined {
    return this.parts.find(
      (part): part is ToolPart => part.type === "dynamic-tool" && (part.approval as { id?: unknown } | undefined)?.id === approvalId,
    );
  }

  #update(chunk: UiChunk, fields: Record<string, unknown>): void {
    const part = this.#tool(String(chunk.toolCallId));
    if (part) Object.assign(part, fields);
  }
}
