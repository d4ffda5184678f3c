// The seed validator's content check, as the seed describes it: its literal placeholder patterns
// (substring, case-insensitive) and naive bracket counting (openers ≠ closers, strings and comments
// included).
const PATTERNS = ['// ... rest of code', '# ... existing code ...', 'todo: implement', 'your code here', '<placeholder>'];

export function seedCheckContent(content: string): Array<'placeholder_content' | 'syntax_error'> {
  const out: Array<'placeholder_content' | 'syntax_error'> = [];
  const lower = content.toLowerCase();
  if (PATTERNS.some((p) => lower.includes(p))) out.push('placeholder_content');
  let depth = 0;
  for (const c of content) {
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth--;
  }
  if (depth !== 0) out.push('syntax_error');
  return out;
}
