// The gate as a turn runs it, in one place: the turn's tools as the gate reads them (each spec without
// what runs it) and, when one of them names paths, the turn's workspace as the path index, so a path
// one letter off is repaired. The loop gates the model's calls with it, and the approval desk
// (src/turns/approvals.ts) a person's edited arguments: both are checked the same way.
import { buildPathIndex, gate, type GateContext, type ProposedCall, type ToolSpec, type Verdict } from 'rebound-gate';
import type { WorkspaceStore } from '../store/types.ts';
import type { Tool } from '../tools/types.ts';

/** A tool as the gate reads it: its spec, without `run` and `needsApproval`. */
export function gateSpec({ run: _run, needsApproval: _needs, ...spec }: Tool): ToolSpec {
  return spec;
}

/** What the gate consults for `specs`: the workspace's path index when one of them names paths (else the workspace is not read). */
export async function workspaceContext(specs: readonly ToolSpec[], listPaths: () => Promise<string[]>): Promise<GateContext> {
  return specs.some((s) => s.pathParams?.length) ? { paths: buildPathIndex(await listPaths()) } : {};
}

/** One call gated against `tool` and this turn's workspace. */
export async function gateInWorkspace(call: ProposedCall, tool: Tool, workspace: Pick<WorkspaceStore, 'list'>): Promise<Verdict> {
  const spec = gateSpec(tool);
  return gate(call, [spec], await workspaceContext([spec], async () => (await workspace.list()).map((f) => f.path)));
}
