// A Durable Object's state as the turn object uses it (src/entries/turn-object.ts: ObjectState), as workerd
// keeps it in memory: one alarm or none, every time it was set, and a key-value storage.
import type { ObjectState } from '../../src/entries/turn-object.ts';

export function objectState() {
  const set: number[] = [];
  const kept = new Map<string, unknown>();
  let alarm: number | null = null;
  const state: ObjectState = {
    storage: {
      getAlarm: async () => alarm,
      setAlarm: async (at) => {
        alarm = at;
        set.push(at);
      },
      get: async <T>(key: string) => kept.get(key) as T | undefined,
      put: async (key, value) => void kept.set(key, value),
      delete: async (key) => kept.delete(key),
    },
  };
  const clear = () => {
    alarm = null;
  };
  return { state, set, kept, current: () => alarm, clear };
}
