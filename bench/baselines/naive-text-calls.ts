// A naive text-call extractor: parse the first `{…}` of the text (brackets counted without regard to
// strings) and take it as a call when it has a name and arguments/parameters.
export function naiveExtract(text: string): Array<{ name: string; arguments: Record<string, unknown> }> {
  const start = text.indexOf('{');
  if (start < 0) return [];
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) {
      try {
        const v = JSON.parse(text.slice(start, i + 1));
        const args = v?.arguments ?? v?.parameters;
        if (typeof v?.name === 'string' && args && typeof args === 'object') return [{ name: v.name, arguments: args }];
      } catch {
        // not JSON: no call
      }
      return [];
    }
  }
  return [];
}
