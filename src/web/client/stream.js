// @ts-check
// The stream client: one EventSource over a turn's event log on the server, which this page only
// reads. A dropped connection is EventSource's to repair (it reconnects on its own with Last-Event-ID
// and the server resumes after that event); an event at or below the last one drawn is a repeat and is
// not delivered twice. Events reach their handlers by name with their data typed by the protocol's
// TurnEvent. It draws nothing itself: the connection indicator is the caller's `setConn`.

/** @typedef {import('../../vocabulary.ts').TurnEvent} TurnEvent */
/** @typedef {TurnEvent['event']} EventName */
/**
 * @template {EventName} N
 * @typedef {Extract<TurnEvent, { event: N }>['data']} EventData
 */
/**
 * What the stream client reads and keeps of a turn. lastSeq is the id of the last event delivered:
 * the server resumes after it on EventSource's own reconnect, and anything at or below it is a repeat.
 * @typedef {{
 *   reattached: boolean, stopping: boolean,
 *   source: EventSource | null, lastSeq: number, everOpen: boolean,
 * }} StreamState
 */
/** @typedef {(state: string, text: string, title?: string) => void} SetConn */

export const RECONNECT_TITLE = 'connection lost; the turn goes on on the server and the stream resumes where it stopped';

// When the last event (or the open) arrived, for the indicator.
let lastEvent = 0;

/**
 * The connection indicator. EventSource never surfaces the server's ': keepalive' comments, but they
 * are what keeps the connection OPEN through proxies while the model is silent. So the indicator reads
 * readyState on a timer, and events tell it the server is actively sending.
 * @param {() => StreamState | null} currentTurn
 * @param {SetConn} setConn
 */
export function watchConnection(currentTurn, setConn) {
  setInterval(() => {
    const current = currentTurn();
    const source = current?.source;
    if (!current || !source) return;
    if (current.stopping && source.readyState !== EventSource.CONNECTING) return setConn('connecting', 'stopping…');
    const quiet = Math.round((Date.now() - lastEvent) / 1000);
    if (source.readyState === EventSource.OPEN) {
      if (quiet < 4) setConn('live', 'connected', 'events arriving');
      else setConn('quiet', 'connected · waiting', `stream open, no event for ${quiet} s (keepalives hold it open)`);
    } else if (source.readyState === EventSource.CONNECTING) {
      if (current.everOpen) setConn('reconnecting', 'reconnecting…', RECONNECT_TITLE);
      else setConn('connecting', 'connecting…');
    }
  }, 1000);
}

/**
 * Opens the turn's stream at `url` (`turn.source`). Returns `on`, which subscribes to one event of the
 * protocol by name, its data typed: renaming an event or a field fails typechecking at the caller.
 * Nothing is delivered once `isCurrent()` is false. `onClosed` is called when EventSource gives up
 * (CLOSED): the server answered without a stream (204: nothing more to read; 401: the stream token
 * expired; 404: the turn is unknown). Chromium also closes it this way when the page is being
 * unloaded, before pagehide.
 * @param {StreamState} turn
 * @param {{ url: string, isCurrent: () => boolean, setConn: SetConn, onClosed: () => void }} hooks
 */
export function openStream(turn, { url, isCurrent, setConn, onClosed }) {
  const source = new EventSource(url);
  turn.source = source;
  setConn('connecting', turn.reattached ? 're-attaching…' : 'connecting…');
  source.onopen = () => {
    lastEvent = Date.now();
    turn.everOpen = true;
    setConn('live', 'connected');
  };
  source.onerror = () => {
    if (!isCurrent()) return;
    if (source.readyState !== EventSource.CLOSED) {
      // A network drop: EventSource reconnects by itself and sends Last-Event-ID. Not an error.
      if (turn.everOpen) setConn('reconnecting', 'reconnecting…', RECONNECT_TITLE);
      return;
    }
    onClosed();
  };
  /**
   * @template {EventName} N
   * @param {N} name
   * @param {(data: EventData<N>) => void} fn
   */
  return (name, fn) =>
    source.addEventListener(name, (ev) => {
      if (!isCurrent()) return;
      // Every event carries its sequence number within the turn. The server resumes after the last one we
      // saw, so a repeat should not happen; if one does, it is not drawn twice.
      if (ev.lastEventId !== '') {
        const seq = Number(ev.lastEventId);
        if (Number.isFinite(seq)) {
          if (seq <= turn.lastSeq) return;
          turn.lastSeq = seq;
        }
      }
      lastEvent = Date.now();
      /** @type {EventData<N>} */
      let data;
      try {
        data = JSON.parse(ev.data);
      } catch {
        return;
      }
      fn(data);
    });
}
