/** Chooses the provider for a model id. Only Anthropic exists today; the loop sees only `ModelProvider`. */
import type { Config } from "../../config";
import { anthropicProvider } from "./anthropic";
import type { ModelProvider } from "./provider";

export function providerFor(_model: string, config: Config): ModelProvider {
  return anthropicProvider({ baseUrl: config.anthropic.baseUrl, apiKey: config.anthropic.apiKey });
}
