/**
 * The gateway's typed client of a tenant's datasets and evals (kept in its agent store): each
 * answer becomes its value, or the problem its machine reason stands for, in one switch.
 */
import type { AuditContext } from "../audit/types";
import type { Env } from "../env";
import { agentStoreStub } from "../objects";
import { ApiError } from "../problems";
import type { EvalFailure, EvalOp, EvalOps, EvalResult } from "./types";

export const DATASET_NOT_FOUND = "No such dataset.";
export const EVAL_NOT_FOUND = "No such eval.";

export function evalProblem(failure: EvalFailure): ApiError {
  switch (failure.reason) {
    case "dataset_not_found":
      return new ApiError("not_found", DATASET_NOT_FOUND);
    case "eval_not_found":
      return new ApiError("not_found", EVAL_NOT_FOUND);
    case "item_not_found":
      return new ApiError("not_found", `The dataset has no item ${failure.index}.`);
    case "too_many_items":
      return new ApiError("validation_failed", `A dataset holds at most ${failure.max} items.`, {
        errors: [{ path: "body.items", message: `At most ${failure.max} items in the dataset.` }],
      });
    case "dataset_empty":
      return new ApiError("validation_failed", "The dataset has no items to run.", {
        errors: [{ path: "body.dataset_id", message: "The dataset has no items." }],
      });
    case "limit_reached":
      return new ApiError("conflict", `At most ${failure.max} ${failure.what} per tenant; delete some first.`);
    case "eval_finished":
      return new ApiError("conflict", `The eval is ${failure.status}.`);
  }
}

type Output<K extends EvalOp> = EvalOps[K]["output"];
type Value<K extends EvalOp> = Output<K> extends EvalResult<infer T> ? T : Output<K>;

export class EvalClient {
  readonly #env: Env;
  readonly #tenantId: string;

  constructor(env: Env, tenantId: string) {
    this.#env = env;
    this.#tenantId = tenantId;
  }

  /** One operation of the store's door; a failure thrown as its problem. */
  async call<K extends EvalOp>(op: K, input: EvalOps[K]["input"], by?: AuditContext): Promise<Value<K>> {
    const stub = agentStoreStub(this.#env, this.#tenantId);
    const answer = (await stub.evals(this.#tenantId, op, input as never, by)) as Output<K>;
    if (typeof answer === "object" && answer !== null && "ok" in answer) {
      const result = answer as EvalResult<unknown>;
      if (!result.ok) throw evalProblem(result);
      return result.value as Value<K>;
    }
    return answer as Value<K>;
  }
}
