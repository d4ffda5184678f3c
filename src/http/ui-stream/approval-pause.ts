// Where a turn's UI message stream ends when the turn waits for a person. AI SDK servers end the stream
// at a tool approval request, and the client's approval response is the next request; Rebound's turn
// log goes on after the decision, so this reader stops at the pause itself: at an `approval_required`
// (or a server's `input_required`) still pending, once everything the turn waits for has been sent. (The loop
// logs these events after the pause is stored, so a reader finds them pending.) An approval decided
// already (a replay after the decision) does not stop it: its result follows in the log. On the way it
// signs each approval request (approval-signature.ts) for the format (mapper.ts) to send.
import type { TurnRecord } from '../../store/types.ts';
import { argumentsHash } from '../../tools/approval.ts';
import type { TurnReader, TurnService } from '../../turns/service.ts';
import type { StreamFormat } from '../turn-stream.ts';
import type { ApprovalSigner } from './approval-signature.ts';
import { type UiStreamControl, uiMessageStreamFormat } from './mapper.ts';

export interface PausingOptions {
  /** The ids of the turn's approvals pending now (the store's word, asked at each approval_required). */
  pendingIds(): Promise<string[]>;
  signer: ApprovalSigner;
  /** Filled here, read by the format: the signatures and the pause's seq. */
  control: UiStreamControl;
}

export function pausingReader(reader: TurnReader, { pendingIds, signer, control }: PausingOptions): TurnReader {
  return {
    events: async function* (signal) {
      const sent = new Set<string>();
      for await (const logged of reader.events(signal)) {
        const { event } = logged;
        if (event.event === 'input_required') {
          // A server's question waits as an approval does (answered with POST /v1/turns/:turnId/inputs/:inputId).
          sent.add(event.data.inputId);
          const pending = await pendingIds();
          yield logged;
          if (pending.includes(event.data.inputId) && pending.every((id) => sent.has(id))) {
            control.pauseSeq = logged.seq;
            return;
          }
          continue;
        }
        if (event.event !== 'approval_required') {
          yield logged;
          continue;
        }
        const { approvalId, toolCallId, name, arguments: args, expiresAt } = event.data;
        sent.add(approvalId);
        const argsHash = await argumentsHash(args);
        control.signatures.set(approvalId, await signer.sign({ approvalId, toolCallId, toolName: name, argsHash, expiresAt }));
        const pending = await pendingIds();
        if (pending.includes(approvalId) && pending.every((id) => sent.has(id))) {
          control.pauseSeq = logged.seq;
          yield logged;
          return; // the turn waits: this stream ends here, the decision's request streams the rest
        }
        yield logged;
      }
    },
    left: () => reader.left(),
  };
}

/**
 * A turn's UI message stream, wherever it is read (/v1/ui/chat, and GET /v1/turns/:id/stream?format=ui,
 * where a Worker's Durable Object serves it): the reader ending at a pause for approval, and the format
 * framing it. `answered`: a continuation's decisions (what its client has already is not sent).
 */
export function pausedUiStream(
  reader: TurnReader,
  { turn, turns, signer, answered }: { turn: TurnRecord; turns: Pick<TurnService, 'approvals'>; signer: ApprovalSigner; answered?: Set<string> },
): { reader: TurnReader; format: StreamFormat } {
  const control: UiStreamControl = { signatures: new Map(), pauseSeq: null, ...(answered ? { answered } : {}) };
  const pendingIds = async () => (await turns.approvals.pending(turn.sessionId)).filter((a) => a.turnId === turn.id).map((a) => a.id);
  return { reader: pausingReader(reader, { pendingIds, signer, control }), format: uiMessageStreamFormat(control) };
}
