import { describe, expect, it } from 'vitest';
import { RowsRefusedError } from '../types.ts';
import { sinkError } from './refusal.ts';

describe('sinkError', () => {
  it.each([
    ['22003', 'a value out of range'],
    ['23505', 'a broken unique constraint'],
    ['21000', 'one id twice in an upsert'],
    ['54000', 'a value too large'],
  ])('SQLSTATE %s (%s) is the rows\u2019 fault: RowsRefusedError with the code and the driver\u2019s error as cause', (code, what) => {
    const driver = Object.assign(new Error(what), { code });
    const err = sinkError('agent_activity insert', driver);
    expect(err).toBeInstanceOf(RowsRefusedError);
    expect(err).toMatchObject({ code, message: `agent_activity insert: ${what}` });
    expect(err.cause).toBe(driver);
  });

  it.each([
    ['08006', 'a lost connection'],
    ['53100', 'a full disk'],
    ['PGRST301', 'a PostgREST error code'],
    ['', 'no code'],
  ])('%s (%s) is not: a plain Error to retry, with its cause', (code, what) => {
    const driver = { message: what, code };
    const err = sinkError('agent_turns upsert', driver);
    expect(err).not.toBeInstanceOf(RowsRefusedError);
    expect(err.message).toBe(`agent_turns upsert: ${what}`);
    expect(err.cause).toBe(driver);
  });

  it('says what it got when the driver threw something without a message', () => {
    expect(sinkError('agent_activity insert', 'socket hang up').message).toBe('agent_activity insert: socket hang up');
  });
});
