// A turn's tools: the app's own (functions/) and what the tool source (MCP servers) offers at the start
// of this turn, with the turn's activity rows tagged with the server of each call's tool. Whatever the
// source opened for the turn is closed when the turn ends, however it ends.
import { tagCalls } from '../activity/tagged.ts';
import type { ActivityWriter } from '../activity/types.ts';
import type { ToolSource } from '../tools/source.ts';
import type { Tool } from '../tools/types.ts';

export interface ToolSet {
  tools: Tool[];
  /** Tools from elsewhere (MCP servers), asked for at the start of each turn. */
  toolSource?: ToolSource;
  activity: ActivityWriter;
}

export async function withTurnTools<T>(deps: ToolSet, signal: AbortSignal, run: (turn: { tools: Tool[]; activity: ActivityWriter }) => Promise<T>): Promise<T> {
  if (!deps.toolSource) return run({ tools: deps.tools, activity: deps.activity });
  const set = await deps.toolSource.open({ signal });
  try {
    const activity = tagCalls(deps.activity, (row) => ({
      tool_server: set.serverOf(row.tool_resolved ?? row.tool_requested) ?? set.serverOf(row.tool_requested),
    }));
    return await run({ tools: [...deps.tools, ...set.tools], activity });
  } finally {
    await set.close();
  }
}
