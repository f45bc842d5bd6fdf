/**
 * The A2A request handler of one request: the SDK's transport handlers parse and answer the wire
 * (both protocol versions), and each method runs here over the platform's session operations.
 * A context is the caller's chat of the agent (src/chat/chat-session.ts), so its ownership rule is
 * the chat's; a task is a run of that session.
 */
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import type { TaskState } from "@a2a-js/sdk";
import {
  ExtendedAgentCardNotConfiguredError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { Agent } from "../agents/types";
import { findChatSession } from "../chat/chat-session";
import type { Actor } from "../sessions/actor";
import type { SessionClient } from "../sessions/client";
import { latestEventId } from "../sessions/follow";
import { ACTIVE_STATUSES } from "../session-config/statuses";
import type { Session } from "../session-config/types";
import { agentCard } from "./card";
import { asA2aError } from "./errors";
import { readRun, readTask } from "./reads";
import { PUSH_CONFIG_ID, refusePushCredentials, requireSamePushUrl, visiblePushConfig } from "./push";
import { openTurn, type Turn } from "./turn";
import { endsStream, parseTaskId, type TaskRef } from "./tasks";
import { taskUpdates } from "./updates";

export class PlatformA2AHandler implements A2ARequestHandler {
  readonly #actor: Actor;
  readonly #agent: Agent;
  readonly #origin: string;
  readonly #signal: AbortSignal;

  constructor(actor: Actor, agent: Agent, origin: string, signal: AbortSignal) {
    this.#actor = actor;
    this.#agent = agent;
    this.#origin = origin;
    this.#signal = signal;
  }

  async getAgentCard(): Promise<AgentCard> {
    return agentCard(this.#agent, this.#origin);
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError({ message: "This agent has no extended card." });
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    return asA2aError(async () => {
      const turn = await openTurn(this.#actor, this.#agent.id, params);
      let ref: TaskRef | null = turn.inputSeq === null ? null : { contextId: turn.contextId, inputSeq: turn.inputSeq };
      for await (const update of this.#turnUpdates(turn)) {
        if (update.payload?.$case === "task") ref = parseTaskId(update.payload.value.id);
        if (params.configuration?.returnImmediately === true && ref !== null) break;
      }
      if (ref === null) throw new Error("the session's events ended before the run's input was seen");
      const session = await turn.client.find();
      if (session === null) throw new TaskNotFoundError({ message: "The task's context is gone." });
      return readTask(turn.client, session, ref, this.#follow());
    });
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse> {
    const turn = await asA2aError(() => openTurn(this.#actor, this.#agent.id, params));
    yield* this.#turnUpdates(turn);
  }

  /**
   * A turn's updates. An answer's task is shown first as it stands: when the run still waits on
   * calls not answered yet, no status changes, so that is also where the turn ends.
   */
  async *#turnUpdates(turn: Turn): AsyncGenerator<StreamResponse> {
    let state: TaskState | undefined;
    if (turn.inputSeq !== null) {
      const task = await this.#current(turn.client, { contextId: turn.contextId, inputSeq: turn.inputSeq });
      yield { payload: { $case: "task", value: task } };
      if (task.status === undefined || endsStream(task.status.state)) return;
      state = task.status.state;
    }
    yield* taskUpdates({ ...this.#source(turn), state }, () => this.#output(turn.client));
  }

  /** The task as its session stands now. */
  async #current(client: SessionClient, ref: TaskRef): Promise<Task> {
    return asA2aError(async () => {
      const session = await client.find();
      if (session === null) throw new TaskNotFoundError({ message: "The task's context is gone." });
      return readTask(client, session, ref, this.#follow());
    });
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    return asA2aError(async () => {
      const { ref, client, session } = await this.#task(params.id);
      return readTask(client, session, ref, this.#follow());
    });
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    return asA2aError(async () => {
      const { ref, client, session } = await this.#task(params.id);
      const run = await readRun(client, ref.inputSeq);
      if (run === null) throw new TaskNotFoundError({ message: `Task not found: ${params.id}` });
      if (run.superseded || !ACTIVE_STATUSES.includes(session.status))
        throw new TaskNotCancelableError({ message: `Task ${params.id} is not running.` });
      const cancelled = await client.cancel();
      return readTask(client, cancelled, ref, this.#follow());
    });
  }

  /**
   * The task as it stands, then its updates live. Not a replay of the log: a pruned log (a reset
   * snapshot) no longer holds the run's input, and the task read from storage does not need it.
   */
  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse> {
    const { ref, client } = await asA2aError(() => this.#task(params.id));
    const cursor = await asA2aError(() => latestEventId(client, this.#follow()));
    const task = await this.#current(client, ref);
    yield { payload: { $case: "task", value: task } };
    if (task.status === undefined || endsStream(task.status.state)) return;
    yield* taskUpdates(
      {
        ...this.#follow(),
        client,
        contextId: ref.contextId,
        cursor,
        inputSeq: ref.inputSeq,
        state: task.status.state,
        signal: this.#signal,
      },
      () => this.#output(client),
    );
  }

  async listTasks(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError({ message: "Listing tasks is not supported: get a task by its id." });
  }

  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    return asA2aError(async () => {
      const { session } = await this.#task(params.taskId);
      refusePushCredentials(params);
      requireSamePushUrl(this.#actor, session, params.url);
      const config = visiblePushConfig(this.#actor, session, params.taskId);
      if (config === null) throw new UnsupportedOperationError({ message: "This caller cannot set a push notification URL." });
      return config;
    });
  }

  async getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
    return asA2aError(async () => {
      const { session } = await this.#task(params.taskId);
      const config = visiblePushConfig(this.#actor, session, params.taskId);
      if (config === null || (params.id !== "" && params.id !== PUSH_CONFIG_ID))
        throw new TaskNotFoundError({ message: `Task ${params.taskId} has no push notification config ${params.id}.` });
      return config;
    });
  }

  async listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    return asA2aError(async () => {
      const { session } = await this.#task(params.taskId);
      const config = visiblePushConfig(this.#actor, session, params.taskId);
      return { configs: config === null ? [] : [config], nextPageToken: "" };
    });
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    await asA2aError(async () => {
      await this.#task(params.taskId);
      throw new UnsupportedOperationError({ message: "A context's push notification URL stays for the context's life." });
    });
  }

  /** The task's context, found by the chat's rule: a task id of another caller names a session this caller has not. */
  async #task(taskId: string): Promise<{ ref: TaskRef; client: SessionClient; session: Session }> {
    const ref = parseTaskId(taskId);
    if (ref === null) throw new TaskNotFoundError({ message: `Task not found: ${taskId}` });
    const { client, session } = await findChatSession(this.#actor, this.#agent.id, ref.contextId);
    if (session === null) throw new TaskNotFoundError({ message: `Task not found: ${taskId}` });
    return { ref, client, session };
  }

  #follow() {
    return { principal: this.#actor.principal, limits: this.#actor.limits };
  }

  #source(turn: { client: SessionClient; contextId: string; cursor: number; inputSeq: number | null }) {
    return { ...this.#follow(), ...turn, signal: this.#signal };
  }

  async #output(client: SessionClient): Promise<unknown> {
    return (await client.find())?.output ?? null;
  }
}
