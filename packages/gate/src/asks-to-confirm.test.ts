import { describe, expect, it } from 'vitest';
import { asksBeforeCall, asksToConfirm, MAX_CONFIRM_LOOKAHEAD, MAX_CONFIRM_LOOKBACK } from './asks-to-confirm.ts';

const asks = (text: string) => asksToConfirm(text, 0);

describe('asksToConfirm', () => {
  it('hears a question about doing it, a request for a yes, a wait for approval', () => {
    for (const text of [
      '\nShould I go ahead?',
      'Shall I?',
      'Go ahead?',
      'Is this OK?',
      'What do you think?',
      '\n\nReply yes and I will.',
      'Reply "yes" to run it.',
      'Let me know if this looks right before I run it.',
      'Tell me whether to proceed.',
      'Do you want me to run this now?',
      'Do you want me to run it now, or do something else?',
      'Would you like me to execute this call?',
      'Do you want me to look it up now, or something else?',
      'I can run it if you want me to.',
      'Please confirm and I will go ahead.',
      'Confirm?',
      'Can you confirm the path first.',
      "I'll wait for your go-ahead.",
      'I will not do that without your approval.',
      'This deletes it for good. Confirm and it is gone.',
      'Done. **Shall I proceed?**',
      'Let me know whether I should continue.',
    ]) {
      expect(asks(text), text).toBe(true);
    }
  });

  it('lets a closer pass: an offer of further help, a look back, a statement, an instruction', () => {
    for (const text of [
      '',
      '\nLet me know if you need further assistance!',
      'Please let me know if you need any further assistance!',
      "Let me know if you'd like me to explain the calculation or provide any further assistance!",
      'Is there anything else I can help you with?',
      'Would you like me to do anything else?',
      'Would you like me to explain how the result was computed?',
      'Did I get it right? I called the `estimate_population` function.',
      'Does this help?',
      'This will confirm your booking.',
      'The answer is yes.',
      'If you want to consider current traffic, you can set the "traffic" argument to True.',
      'See https://example.com/?q=1 for the units.',
    ]) {
      expect(asks(text), text).toBe(false);
    }
  });

  it('reads only from `from` to `to`, and no further than MAX_CONFIRM_LOOKAHEAD characters', () => {
    const text = 'Deleting. Shall I?';
    expect(asksToConfirm(text, 0, 9)).toBe(false);
    expect(asksToConfirm(text, 9)).toBe(true);
    const far = `${'It is done. '.repeat(Math.ceil(MAX_CONFIRM_LOOKAHEAD / 12))}Shall I?`;
    expect(asks(far)).toBe(false);
  });
});

describe('asksBeforeCall', () => {
  const before = (text: string) => asksBeforeCall(text, 0, text.length);

  it('hears a question about doing it, or a request for a yes, left open when the call starts', () => {
    for (const text of [
      'Should I delete the old logs?\n',
      'Do you want me to reset it?\n\n',
      'Would you like me to remove the build folder? It takes 2 GB.\n',
      'Should I remember that you prefer tabs? If so, this is what I would save:\n',
      'Please confirm before I run this.\n',
      'Reply yes and I will run the following:\n',
      'Is it OK to delete them?\nHere is the call for the first one:\n',
      'Do you mean Paris, France or Paris, Texas?\n',
      'Shall I? I will once you say so.\n',
      'Do you want me to delete the old logs? Let me know.\n',
      "Should I remove build/? I'll wait.\n",
      "Shall I cancel it? OK, I'll hold off for now.\n",
      '<think>\nThey asked.\n</think>\nShould I delete the old logs?\n',
    ]) {
      expect(before(text), text).toBe(true);
    }
  });

  it('lets a statement, a closer, and a question the model answers itself pass', () => {
    for (const text of [
      '',
      'Let me check the weather.\n',
      'What is the weather in Paris? Let me check.\n',
      "You asked whether the file exists. Sure, I'll look.\n",
      'Should I read it first? Yes, here it is:\n',
      'Is there anything else I can help you with? Checking now.\n',
      // The model asking itself in a reasoning block, not the user.
      '<think>\nThe user wants the old logs gone. Should I delete them? They asked for exactly that.\n</think>\n\n',
    ]) {
      expect(before(text), text).toBe(false);
    }
  });

  it('reads only from `from` to `to`, and no further back than MAX_CONFIRM_LOOKBACK characters', () => {
    const text = 'Shall I? Reading it.\n';
    expect(asksBeforeCall(text, 8, text.length)).toBe(false);
    expect(asksBeforeCall(text, 0, 8)).toBe(true);
    const far = `Shall I?\n${'The log is long. '.repeat(Math.ceil(MAX_CONFIRM_LOOKBACK / 17))}`;
    expect(before(far)).toBe(false);
  });
});
