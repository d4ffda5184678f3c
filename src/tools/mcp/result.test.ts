import { describe, expect, it } from 'vitest';
import { MAX_ERROR_CHARS, mapCallResult } from './result.ts';

const text = (t: string) => ({ type: 'text', text: t });

describe('mapCallResult', () => {
  it('one text block is the result as it is', () => {
    expect(mapCallResult({ content: [text('The sum of 2 and 3 is 5.')] })).toEqual({ ok: true, value: 'The sum of 2 and 3 is 5.' });
  });

  it('structuredContent wins over the text that duplicates it', () => {
    const weather = { temperature: 33, conditions: 'Cloudy', humidity: 82 };
    expect(mapCallResult({ content: [text(JSON.stringify(weather))], structuredContent: weather })).toEqual({ ok: true, value: weather });
  });

  it('isError is a failure with the text as the message, whatever else came', () => {
    expect(mapCallResult({ isError: true, content: [text('Unknown customer 42')], structuredContent: { x: 1 } })).toEqual({
      ok: false,
      error: 'Unknown customer 42',
    });
    expect(mapCallResult({ isError: true, content: [] })).toEqual({ ok: false, error: 'the tool reported an error without a message' });
    const long = mapCallResult({ isError: true, content: [text('e'.repeat(5_000))] });
    expect(long.ok === false && long.error.length).toBe(MAX_ERROR_CHARS + 1);
  });

  it('summarises images, audio and resources instead of inlining them', () => {
    const png = `${'A'.repeat(4_000)}==`;
    const out = mapCallResult({
      content: [
        text("Here's the image you requested:"),
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'demo://resource/static/document/1', mimeType: 'text/plain', text: 'hello' } },
        { type: 'resource', resource: { uri: 'demo://blob/2', mimeType: 'application/octet-stream', blob: 'AAAAAAAA' } },
        { type: 'resource_link', uri: 'demo://resource/3', name: 'Resource 3', mimeType: 'text/plain' },
        { type: 'hologram' },
      ],
    });
    expect(out).toEqual({
      ok: true,
      value: [
        "Here's the image you requested:",
        '[image: image/png, 2.9 KB, not shown]',
        '[audio: audio/wav, 3 bytes, not shown]',
        '[resource demo://resource/static/document/1: text/plain, 5 characters of text, not shown]',
        '[resource demo://blob/2: application/octet-stream, 6 bytes, not shown]',
        '[resource link demo://resource/3 "Resource 3": text/plain]',
        '[hologram content, not shown]',
      ].join('\n'),
    });
    expect(JSON.stringify(out)).not.toContain('AAAA');
  });

  it('says so when nothing came back, and reads the old toolResult form', () => {
    expect(mapCallResult({ content: [] })).toEqual({ ok: true, value: '(the tool returned no content)' });
    expect(mapCallResult({ toolResult: { rows: 2 } })).toEqual({ ok: true, value: { rows: 2 } });
  });
});
