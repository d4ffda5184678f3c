// The one reading of a JSON object the codecs need (a call's arguments, an upstream's event or body):
// the object the text holds, or null when it holds anything else or is not JSON. And the one reading
// of a Chat Completions body's or chunk's choice (the first that is an object).
import { isPlainObject } from 'rebound-gate/internal';

export function jsonObject(text: unknown): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(String(text ?? ''));
    return isPlainObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** The first choice of a Chat Completions body or chunk that is an object, if any. */
export function firstChoice(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const choices = body.choices;
  if (!Array.isArray(choices)) return undefined;
  for (const choice of choices) if (isPlainObject(choice)) return choice;
  return undefined;
}
