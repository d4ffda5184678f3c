import type { Config } from '../config.ts';
import { DemoModel } from './demo.ts';
import { OpenAIModel } from './openai.ts';
import type { ModelClient } from './types.ts';

/** The configured model, or the demo model when no API key is set (or DEMO_MODEL forces it). */
export function createModel(config: Config, options: { fetch?: typeof fetch; demoWordDelayMs?: number } = {}): ModelClient {
  if (config.demo || !config.openai.apiKey) return new DemoModel({ wordDelayMs: options.demoWordDelayMs });
  return new OpenAIModel({
    apiKey: config.openai.apiKey,
    baseURL: config.openai.baseURL,
    model: config.openai.model,
    timeoutMs: config.openai.timeoutMs,
    fetch: options.fetch,
  });
}
