// A writer that completes each call row before passing it on, for what only the caller knows: which
// MCP server a turn's tool belongs to (src/turns/turn-tools.ts). The loop builds rows without it.
import type { ActivityRow, ActivityWriter } from './types.ts';

export function tagCalls(writer: ActivityWriter, tag: (row: ActivityRow) => Partial<ActivityRow>): ActivityWriter {
  return {
    recordCall: (row) => writer.recordCall({ ...row, ...tag(row) }),
    recordTurn: (row) => writer.recordTurn(row),
    flush: () => writer.flush(),
  };
}
