// The model's side of the server-everything scenario, by step: everything__get_sum with "2" for a
// number (to repair), everything__add (a phantom tool, get-sum suggested), everything__echo without
// its message (blocked before the server), then the answer.
import type { Reply } from '../support/scripted-openai.ts';

export function everythingStep(step: number): Reply {
  switch (step) {
    case 0:
      return { toolCalls: [{ id: 'c_sum', name: 'everything__get_sum', arguments: '{"a":"2","b":3}' }] };
    case 1:
      return { toolCalls: [{ id: 'c_add', name: 'everything__add', arguments: '{"a":2,"b":3}' }] };
    case 2:
      return { toolCalls: [{ id: 'c_echo', name: 'everything__echo', arguments: '{}' }] };
    default:
      return { text: 'The sum is 5.' };
  }
}
