// The one reading of a JSON object the codecs need (a call's arguments, an upstream's event or body):
// the object the text holds, or null when it holds anything else or is not JSON.
import { isPlainObject } from 'rebound-gate/internal';

export function jsonObject(text: unknown): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(String(text ?? ''));
    return isPlainObject(v) ? v : null;
  } catch {
    return null;
  }
}
