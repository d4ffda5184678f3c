import type { Config } from '../config.ts';
import type { DemoModelOptions } from './demo.ts';
import { OpenAIModel } from './openai.ts';
import { DEMO_MODEL_NAME, type ModelClient, type ModelEvent, type ModelRequest } from './types.ts';

/** The configured model, or the demo model when no API key is set (or DEMO_MODEL forces it). */
export function createModel(config: Config, options: { fetch?: typeof fetch; demoWordDelayMs?: number } = {}): ModelClient {
  if (config.demo || !config.openai.apiKey) return new LazyDemoModel({ wordDelayMs: options.demoWordDelayMs });
  return new OpenAIModel({
    apiKey: config.openai.apiKey,
    baseURL: config.openai.baseURL,
    model: config.openai.model,
    timeoutMs: config.openai.timeoutMs,
    fetch: options.fetch,
  });
}

/**
 * The demo model, its script (demo.ts) loaded with import() on its first answer: a server with a model
 * key never evaluates it, and on Workers it stays out of the startup script (scripts/build-worker.ts).
 */
class LazyDemoModel implements ModelClient {
  readonly model = DEMO_MODEL_NAME;
  readonly demo = true;
  #model: Promise<ModelClient> | undefined;

  private readonly options: DemoModelOptions;
  constructor(options: DemoModelOptions) {
    this.options = options;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    this.#model ??= import('./demo.ts').then(({ DemoModel }) => new DemoModel(this.options));
    yield* (await this.#model).stream(request);
  }
}
