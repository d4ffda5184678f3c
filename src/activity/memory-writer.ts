// The simplest writer: keeps every row in memory. Used by tests and as the default when no sink is set.
import type { ActivityRow, ActivityWriter, FlushReport, TurnRow } from './types.ts';

export class MemoryActivityWriter implements ActivityWriter {
  readonly calls: ActivityRow[] = [];
  readonly turns: TurnRow[] = [];

  recordCall(row: ActivityRow): void {
    this.calls.push(row);
  }

  recordTurn(row: TurnRow): void {
    this.turns.push(row);
  }

  async flush(): Promise<FlushReport> {
    return { written: this.calls.length + this.turns.length, dropped: 0 };
  }
}
