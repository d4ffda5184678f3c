import { describe, expect, it } from 'vitest';
import { type InputQuestion, MAX_INPUT_FIELDS, MAX_INPUT_STRING, readAnswer, unaskable } from './input.ts';

const form: InputQuestion = {
  server: 'shop',
  tool: 'confirm_order',
  key: 'confirm',
  mode: 'form',
  message: 'Order mug?',
  requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' }, note: { type: 'string', maxLength: 5 } }, required: ['confirm'] },
};

describe('readAnswer', () => {
  it('takes MCP’s ElicitResult when the content fits the server’s schema', () => {
    expect(readAnswer(form, { action: 'accept', content: { confirm: true } })).toEqual({ ok: true, answer: { action: 'accept', content: { confirm: true } } });
    expect(readAnswer(form, { action: 'decline' })).toEqual({ ok: true, answer: { action: 'decline' } });
    expect(readAnswer(form, { action: 'cancel' })).toEqual({ ok: true, answer: { action: 'cancel' } });
  });

  it('says what does not fit: a wrong type, a missing or extra field, content with a decline, an unknown action', () => {
    const refused = (body: unknown) => {
      const read = readAnswer(form, body);
      return read.ok ? null : read.message;
    };
    expect(refused({ action: 'accept', content: { confirm: 'yes' } })).toMatch(/\$\.confirm/);
    expect(refused({ action: 'accept', content: {} })).toMatch(/confirm/);
    expect(refused({ action: 'accept', content: { confirm: true, colour: 'red' } })).toMatch(/did not ask for: "colour"/);
    expect(refused({ action: 'accept', content: { confirm: true, note: 'far too long' } })).toMatch(/\$\.note: longer than 5 characters/);
    expect(refused({ action: 'decline', content: { confirm: false } })).toMatch(/only with "accept"/);
    expect(refused({ action: 'approve' })).toMatch(/"accept", "decline" or "cancel"/);
    expect(refused([])).toMatch(/JSON object/);
    expect(refused({ action: 'accept', content: 'yes' })).toMatch(/content must be an object/);
    expect(refused({ action: 'accept', content: ['yes'] })).toMatch(/content must be an object/);
  });

  it('holds numbers to their range and strings to MAX_INPUT_STRING where the schema sets no maxLength', () => {
    const q: InputQuestion = {
      ...form,
      requestedSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 3 }, text: { type: 'string' } } },
    };
    expect(readAnswer(q, { action: 'accept', content: { n: 2, text: 'ok' } }).ok).toBe(true);
    expect(readAnswer(q, { action: 'accept', content: { n: 5 } })).toMatchObject({ ok: false, message: expect.stringMatching(/\$\.n: above the maximum 3/) });
    expect(readAnswer(q, { action: 'accept', content: { text: 'x'.repeat(MAX_INPUT_STRING + 1) } })).toMatchObject({ ok: false });
  });

  it('a URL question is answered without content', () => {
    const url: InputQuestion = { ...form, mode: 'url', requestedSchema: undefined, url: 'https://example.test/login' };
    expect(readAnswer(url, { action: 'accept' })).toEqual({ ok: true, answer: { action: 'accept' } });
    expect(readAnswer(url, { action: 'accept', content: { x: 1 } }).ok).toBe(false);
  });
});

describe('unaskable', () => {
  it('takes a flat object of primitives and multi-selects, and refuses the rest, or too many fields', () => {
    expect(unaskable(form.requestedSchema)).toBeNull();
    expect(unaskable({ type: 'object', properties: { tags: { type: 'array', items: { enum: ['a', 'b'] } } } })).toBeNull();
    expect(unaskable({ type: 'object', properties: { nested: { type: 'object' } } })).toMatch(/"nested" is not a string/);
    expect(unaskable({ type: 'array' })).toMatch(/not an object/);
    const many = Object.fromEntries(Array.from({ length: MAX_INPUT_FIELDS + 1 }, (_, i) => [`f${i}`, { type: 'string' }]));
    expect(unaskable({ type: 'object', properties: many })).toMatch(/21 fields/);
    // Within 20 fields, one enum of 5,001 values is past the gate's schema limits: not kept, not sent to readers.
    const choices = Array.from({ length: 5_001 }, (_, i) => `c${i}`);
    expect(unaskable({ type: 'object', properties: { pick: { type: 'string', enum: choices } } })).toMatch(/requestedSchema .*enum/);
  });
});
