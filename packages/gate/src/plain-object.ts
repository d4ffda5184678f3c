// Whether a parsed JSON value is an object (not null, not an array): the check every layer makes of
// what a model, a tool or a client sent. It lives in the gate because the gate is the bottom layer and
// imports nothing (it is to become a package of its own): every other layer may import it from here,
// and a base module outside the gate is one the gate could not use.
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
