// A turn's tools: the app's own (functions/) and what the tool source (MCP servers) offers at the start
// of this turn, with the turn's activity rows tagged with the server of each call's tool and the MCP
// revision it spoke. The loop asks
// for them once turn_start is out (TurnDeps.openTools), and closes whatever the source opened for the
// turn when the turn ends, however it ends.
import { tagCalls } from '../activity/tagged.ts';
import type { ActivityWriter } from '../activity/types.ts';
import type { OpenedTools } from '../loop/turn.ts';
import type { ToolSource } from '../tools/source.ts';
import type { Tool } from '../tools/types.ts';

export interface ToolSet {
  tools: Tool[];
  /** Tools from elsewhere (MCP servers), asked for at the start of each turn. */
  toolSource?: ToolSource;
  activity: ActivityWriter;
}

/** The source's tools for one turn (the app's own are the turn's already), or undefined without a source. */
export function turnToolOpener(deps: ToolSet): ((signal: AbortSignal) => Promise<OpenedTools>) | undefined {
  const source = deps.toolSource;
  if (!source) return undefined;
  return async (signal) => {
    const set = await source.open({ signal });
    const activity = tagCalls(deps.activity, (row) => {
      const protocol = row.tool_resolved ? set.tools.find((t) => t.name === row.tool_resolved)?.origin?.protocolVersion : undefined;
      return {
        tool_server: set.serverOf(row.tool_resolved ?? row.tool_requested) ?? set.serverOf(row.tool_requested),
        ...(protocol ? { mcp_protocol: protocol } : {}),
      };
    });
    return { tools: set.tools, activity, close: () => set.close() };
  };
}
