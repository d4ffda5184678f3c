// The SSE protocol (docs/protocol in README): every event the client sees during one turn, as data.
import type { Category, Repair } from '../gate/types.ts';

export type DoneReason = 'completed' | 'iteration_limit' | 'time_budget' | 'aborted' | 'error';

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export type TurnEvent =
  | { event: 'turn_start'; data: { turnId: string; sessionId: string; model: string; demo: boolean } }
  | { event: 'text_delta'; data: { text: string } }
  | { event: 'tool_call'; data: { id: string; name: string; arguments: string; iteration: number } }
  | {
      event: 'tool_result';
      data: {
        id: string;
        name: string;
        verdict: 'pass' | 'repaired' | 'blocked';
        category: Category;
        ok: boolean;
        result?: unknown;
        error?: string;
        suggestions?: string[];
        repairs?: Repair[];
        durationMs: number;
      };
    }
  | { event: 'forced_summary'; data: { reason: 'iteration_limit' | 'time_budget' } }
  | { event: 'agent_error'; data: { message: string; retryable: boolean } }
  | { event: 'done'; data: { reason: DoneReason; iterations: number; usage: Usage } };

export type EventName = TurnEvent['event'];
export type Emit = (event: TurnEvent) => void;

/** An event as a turn's log holds it: numbered from 1 within the turn (the SSE `id:`). */
export interface LoggedEvent {
  seq: number;
  event: TurnEvent;
}
