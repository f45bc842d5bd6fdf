/**
 * The model or tool calls in flight, each with its own AbortController, so a cancel or a pause
 * stops spending at once. Memory only: a restart has nothing in flight.
 */
export class InflightCalls {
  readonly #controllers = new Set<AbortController>();

  begin(): AbortController {
    const controller = new AbortController();
    this.#controllers.add(controller);
    return controller;
  }

  end(controller: AbortController): void {
    this.#controllers.delete(controller);
  }

  abortAll(reason: string): void {
    for (const controller of this.#controllers) controller.abort(new DOMException(reason, "AbortError"));
    this.#controllers.clear();
  }
}
