import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME, TOOL_NAME, exposedNames, serverPrefix } from './names.ts';

describe('exposedNames', () => {
  it('prefixes each tool with its server and keeps valid names as they are', () => {
    expect([...exposedNames('everything', ['get-sum', 'echo', 'get_env'])]).toEqual([
      ['get-sum', 'everything__get-sum'],
      ['echo', 'everything__echo'],
      ['get_env', 'everything__get_env'],
    ]);
  });

  it('replaces characters outside the OpenAI charset', () => {
    const names = exposedNames('crm', ['customers.find', 'notes/add', 'überblick', 'say hi']);
    expect([...names.values()]).toEqual(['crm__customers_find', 'crm__notes_add', 'crm___berblick', 'crm__say_hi']);
  });

  it('cuts long names to 64 characters with a hash, so that two long names stay apart', () => {
    const a = `${'x'.repeat(70)}_alpha`;
    const b = `${'x'.repeat(70)}_beta`;
    const names = exposedNames('srv', [a, b]);
    expect(names.get(a)!.length).toBe(MAX_TOOL_NAME);
    expect(names.get(b)!.length).toBe(MAX_TOOL_NAME);
    expect(names.get(a)).not.toBe(names.get(b));
    expect(names.get(a)!.startsWith('srv__xxxx')).toBe(true);
  });

  it('a valid name keeps its name when a changed one would collide with it, in any order', () => {
    for (const order of [
      ['a.b', 'a_b'],
      ['a_b', 'a.b'],
    ]) {
      const names = exposedNames('s', order);
      expect(names.get('a_b')).toBe('s__a_b');
      expect(names.get('a.b')).toMatch(/^s__a_b_[0-9a-f]{6}$/);
    }
  });

  it('two changed names that collide are told apart', () => {
    const names = exposedNames('s', ['a.b', 'a/b']);
    expect(new Set(names.values()).size).toBe(2);
  });

  it('every name it makes is within the rule, and it is stable', () => {
    const tools = ['', 'ok', 'with space', '日本語', 'a'.repeat(200), '--', 'x.y.z', 'x_y_z'];
    const names = exposedNames('server-1', tools);
    expect(names.has('')).toBe(false);
    for (const name of names.values()) expect(name).toMatch(TOOL_NAME);
    expect([...exposedNames('server-1', tools)]).toEqual([...names]);
  });
});

describe('serverPrefix', () => {
  it('reads the server from an exposed name', () => {
    expect(serverPrefix('everything__get-sum')).toBe('everything');
    expect(serverPrefix('everything__add')).toBe('everything');
    expect(serverPrefix('read_file')).toBeNull();
    expect(serverPrefix('__x')).toBeNull();
  });
});
