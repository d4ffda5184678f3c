// Whether a setting names an http(s) URL: MCP_SERVERS' urls and the OTLP endpoints are read with it,
// so both accept and refuse the same strings.
export function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
