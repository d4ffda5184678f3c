// Issue 29 in the agent loop: a call the model only shows or asks about in its prose is not consent.
// Turn 1 writes notes/important.md; turn 2 answers with prose holding a delete_file call (the review's
// answers and the hand-written negatives over the own tools); the file survives, no tool runs, and the
// text reaches the user exactly as the model wrote it. A call in markup, or an answer that is nothing
// but the call, still runs.
import { describe, expect, it } from 'vitest';
import { defaultTools } from '../../functions/index.ts';
import { isNarratedAction } from '../../src/loop/nudges.ts';
import { CALLING_FORMS, ISSUE_ANSWER, MARKUP_THEN_ASK, ownToolNegatives, proseAnswers, REVIEW_ANSWERS } from '../support/prose-calls.ts';
import type { ChatRequest, Script } from '../support/scripted-openai.ts';
import { scriptedApps } from '../support/scripted-app.ts';
import { chat, textOf } from '../support/sse-client.ts';

const start = scriptedApps({ MODEL_RETRIES: '0' });

const WRITE = { name: 'write_file', arguments: '{"path": "notes/important.md", "content": "keep me\\n"}' };
const READ = { name: 'read_file', arguments: '{"path": "notes/important.md"}' };
const userMessage = (req: ChatRequest) => req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
const afterTool = (req: ChatRequest) => req.messages.at(-1)?.role === 'tool';

/**
 * One session: "write" writes the file, "read" reads it, any other message is answered with the text
 * stored under it; after a tool result, or when told anything else (a nudge), "Done."
 */
function sessionScript(answers: Map<string, string>): Script {
  return (req) => {
    const said = userMessage(req);
    if (afterTool(req) || !(said === 'write' || said === 'read' || answers.has(said))) return { text: 'Done.' };
    if (said === 'write') return { toolCalls: [WRITE] };
    if (said === 'read') return { toolCalls: [READ] };
    return { text: answers.get(said)! };
  };
}

async function session(answers: string[]) {
  const byMessage = new Map(answers.map((a, i) => [`answer ${i}`, a]));
  const { app, upstream } = await start(sessionScript(byMessage), { deps: { tools: defaultTools } });
  const first = await chat(app.url, { message: 'write' });
  const sessionId = first.events[0]!.data.sessionId as string;
  expect(first.events.find((e) => e.event === 'tool_result')?.data).toMatchObject({ name: 'write_file', ok: true });
  const turn = (message: string) => chat(app.url, { message, sessionId });
  const fileContent = async () => {
    const read = await turn('read');
    return read.events.find((e) => e.event === 'tool_result')?.data.result?.content as string | undefined;
  };
  return { app, upstream, turn, fileContent, messages: [...byMessage.keys()] };
}

describe('a call in the model’s prose runs nothing in the loop (issue 29)', () => {
  it('the review’s answer: the file survives, no call, the text reaches the user as written, one model request', async () => {
    const s = await session([ISSUE_ANSWER]);
    const before = s.upstream.requests.length;
    const res = await s.turn(s.messages[0]!);
    expect(res.events.filter((e) => e.event === 'tool_call' || e.event === 'tool_result')).toEqual([]);
    expect(textOf(res.events)).toBe(ISSUE_ANSWER);
    expect(res.events.at(-1)?.data).toMatchObject({ reason: 'completed', iterations: 1 });
    expect(s.upstream.requests.length - before).toBe(1);
    expect(await s.fileContent()).toBe('1\tkeep me');
    expect(s.app.activity.calls.map((c) => c.tool_resolved)).toEqual(['write_file', 'read_file']);
  });

  it(`every prose answer (the review’s ${REVIEW_ANSWERS.length}, ${MARKUP_THEN_ASK.length} calls in markup then an ask, the corpus’s ${ownToolNegatives().length} over the own tools) runs nothing and reaches the user unchanged`, async () => {
    const answers = proseAnswers();
    const s = await session(answers);
    for (const [i, answer] of answers.entries()) {
      const res = await s.turn(s.messages[i]!);
      expect(
        res.events.filter((e) => e.event === 'tool_call'),
        answer,
      ).toEqual([]);
      // A reply that ends by announcing an action gets the loop's narration nudge, and the model's "Done." after it.
      expect(textOf(res.events), answer).toBe(isNarratedAction(answer) ? `${answer}Done.` : answer);
    }
    expect(await s.fileContent()).toBe('1\tkeep me');
    expect(s.app.activity.calls.map((c) => c.tool_resolved)).toEqual(['write_file', 'read_file']);
  });

  it('a call in tool-call markup still runs, and so does an answer that is nothing but the call', async () => {
    for (const form of Object.values(CALLING_FORMS)) {
      const s = await session([form]);
      const res = await s.turn(s.messages[0]!);
      expect(res.events.find((e) => e.event === 'tool_call')?.data, form).toMatchObject({ name: 'delete_file' });
      expect(res.events.find((e) => e.event === 'tool_result')?.data, form).toMatchObject({ ok: true, category: 'text_embedded_call' });
      expect(textOf(res.events)).not.toContain('delete_file');
      expect(await s.fileContent()).toBeUndefined();
    }
  });
});
