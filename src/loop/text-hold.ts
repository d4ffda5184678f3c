// Text deltas go to the client as they arrive, except from the point where the text may be a tool
// call written into the reply (a ```json fence, <tool_call>, a JSON object at the start of a line).
// From there it is held until the completion ends, so that an extracted call is not also shown.
const TRIGGER = /(?:^|\n)[ \t]*(?:\{|\[[ \t\r\n]*\{)|```|<tool_call|<\||\{"/;
// A tail that may be the start of a trigger still being streamed ("`", "``", "<tool", "\n  [").
const PARTIAL = /(?:`{1,2}|<(?:t(?:o(?:o(?:l(?:_(?:c(?:a(?:l)?)?)?)?)?)?)?)?|\{|(?:^|\n)[ \t]*\[?[ \t\r\n]*)$/;

export class TextHold {
  private text = '';
  private emitted = 0;
  private holding = false;

  /** Adds a delta; returns the part that can be shown now. */
  push(delta: string): string {
    this.text += delta;
    if (this.holding) return '';
    const rest = this.text.slice(this.emitted);
    const trigger = TRIGGER.exec(rest);
    let upTo: number;
    if (trigger) {
      this.holding = true;
      upTo = this.emitted + trigger.index;
    } else {
      const partial = PARTIAL.exec(rest);
      upTo = this.emitted + (partial ? partial.index : rest.length);
    }
    const out = this.text.slice(this.emitted, upTo);
    this.emitted = upTo;
    return out;
  }

  get full(): string {
    return this.text;
  }

  /** At the end of the completion: what is still to be shown, given the text the client should end up seeing. */
  release(visible: string = this.text): string {
    const shown = this.text.slice(0, this.emitted);
    const out = visible.startsWith(shown) ? visible.slice(shown.length) : '';
    this.emitted = this.text.length;
    return out;
  }
}
