// @ts-check
// One assistant message in the transcript: text segments rendered as Markdown, interleaved with tool
// cards in the order they happened, and notices. Everything from the model, the tools and the server
// reaches the DOM as text nodes or through markdown.js + dom.js, never as HTML.
import { renderBlocks } from './dom.js';
import { markdownTree } from './markdown.js';

/** @typedef {import('./history.js').CardResult} CardResult */
/** @typedef {import('../../vocabulary.ts').FileDiff} FileDiff */
/** @typedef {Extract<import('../../vocabulary.ts').TurnEvent, { event: 'approval_required' }>['data']} ApprovalRequest */
/**
 * What the page does with a person's decision (chat.js posts it): resolves when the server took it,
 * or to the message to show when it refused it (`final`: nothing more can be decided on this card).
 * @typedef {(approved: boolean, reason: string) => Promise<{ ok: true } | { ok: false, message: string, final: boolean }>} Decide
 */

/** @typedef {Extract<import('../../vocabulary.ts').TurnEvent, { event: 'input_required' }>['data']} InputRequest */
/**
 * What the page does with a person's answer to a server's question (chat.js posts it), MCP's ElicitResult.
 * @typedef {(answer: { action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown> }) => Promise<{ ok: true } | { ok: false, message: string, final: boolean }>} AnswerInput
 */

/** At most this many fields of a server's form are drawn (the server bounds it too: src/tools/input.ts). */
const MAX_FORM_FIELDS = 20;

/** What a decided call's badge says. */
const APPROVAL_TEXT = { approved: 'approved', denied: 'denied', expired: 'expired' };

/** A diff longer than this many lines starts collapsed. */
const DIFF_OPEN_LINES = 24;

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [cls]
 * @param {unknown} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** @param {string} summary @param {string} text */
function details(summary, text) {
  const d = el('details');
  d.append(el('summary', '', summary), el('pre', '', text));
  return d;
}

/**
 * @param {string} cls
 * @param {string} heading
 * @param {Array<string | Node[]>} items
 */
function listBlock(cls, heading, items) {
  const box = el('div', cls);
  box.append(el('span', '', heading));
  const ul = el('ul');
  for (const item of items) {
    const li = el('li');
    if (Array.isArray(item)) li.append(...item);
    else li.append(el('code', '', item));
    ul.append(li);
  }
  box.append(ul);
  return box;
}

/** @param {string} raw */
function prettyArgs(raw) {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return String(raw);
  }
}

/**
 * A text segment of a message: its Markdown drawn at most once per animation frame while it streams
 * (not once per delta), and once more, whole, when the segment ends.
 * @param {(fn: () => void) => void} stickToBottom
 */
function TextSegment(stickToBottom) {
  const node = el('div', 'answer live');
  let text = '';
  let live = true;
  let frame = 0;
  const draw = () => {
    frame = 0;
    stickToBottom(() => renderBlocks(node, markdownTree(text, { streaming: live }), schedule));
  };
  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(draw);
  };
  return {
    node,
    /** @param {string} t */
    append(t) {
      text += t;
      schedule();
    },
    finish() {
      if (!live) return;
      live = false;
      node.classList.remove('live');
      cancelAnimationFrame(frame);
      draw();
    },
  };
}

/**
 * A file's diff: its path, the counts, and the unified diff (collapsed past DIFF_OPEN_LINES lines).
 * @param {FileDiff} diff
 */
function diffView(diff) {
  const box = el('details', 'diff');
  box.dataset.change = diff.change;
  const lines = diff.hunks === '' ? [] : diff.hunks.split('\n');
  box.open = lines.length <= DIFF_OPEN_LINES;
  const summary = el('summary');
  summary.append(el('span', 'diff-path', diff.path), ' ', el('span', 'diff-change', diff.change));
  if (!diff.binary) summary.append(' ', el('span', 'diff-added', `+${diff.added}`), ' ', el('span', 'diff-removed', `−${diff.removed}`));
  box.append(summary);
  if (diff.binary) {
    box.append(el('p', 'diff-note', 'binary file: no line diff'));
    return box;
  }
  const pre = el('pre', 'diff-lines');
  for (const line of lines) {
    const kind = line.startsWith('@@') ? 'hunk' : line[0] === '+' ? 'add' : line[0] === '-' ? 'del' : 'ctx';
    pre.append(el('span', `diff-${kind}`, `${line}\n`));
  }
  box.append(pre);
  if (diff.omitted) box.append(el('p', 'diff-note', `${diff.omitted} more diff lines not shown`));
  return box;
}

/**
 * @param {{ transcript: HTMLElement, stickToBottom: (fn: () => void) => void, hideHint: () => void }} page
 */
export function AssistantView(page) {
  page.hideHint();
  const root = el('div', 'msg assistant');
  root.append(el('div', 'who', 'Agent'));
  page.transcript.append(root);
  /** @type {ReturnType<typeof TextSegment> | null} */
  let segment = null;
  /** @typedef {{ card: HTMLElement, head: HTMLElement, verdict: HTMLElement, approval?: HTMLElement }} ToolEntry */
  /** @type {Map<string, ToolEntry>} */
  const tools = new Map();
  /** @param {Node} node */
  const add = (node) => page.stickToBottom(() => root.append(node));
  const endSegment = () => {
    segment?.finish();
    segment = null;
  };

  /**
   * @param {string} id
   * @param {string} name
   * @param {string} [args]
   */
  function toolCard(id, name, args) {
    endSegment();
    const card = el('div', 'tool');
    card.dataset.verdict = 'pending';
    const head = el('div', 'tool-head');
    const verdict = el('span', 'verdict pending', 'checking…');
    head.append(el('span', 'tool-name', name), verdict);
    card.append(head);
    if (args !== undefined) card.append(details('arguments', prettyArgs(args)));
    /** @type {ToolEntry} */
    const entry = { card, head, verdict };
    tools.set(id, entry);
    add(card);
    return entry;
  }

  /**
   * The card of a call that now waits for the person (an approval, a server's question), its earlier box gone.
   * @param {string} id
   * @param {string} name
   * @param {string} label what its verdict says meanwhile
   */
  function awaiting(id, name, label) {
    const entry = tools.get(id) || toolCard(id, name);
    entry.approval?.remove();
    entry.card.dataset.approval = 'requested';
    entry.verdict.className = 'verdict awaiting';
    entry.verdict.textContent = label;
    return entry;
  }

  return {
    root,
    /** @param {boolean} on */
    streaming(on) {
      root.classList.toggle('streaming', on);
      root.setAttribute('aria-busy', on ? 'true' : 'false');
      if (!on) endSegment();
    },
    /** @param {string} t */
    text(t) {
      if (!segment) {
        segment = TextSegment(page.stickToBottom);
        add(segment.node);
      }
      segment.append(t);
    },
    /** Ends the current text segment now (a message from the history is whole). */
    settle() {
      endSegment();
    },
    /** @param {{ id: string, name: string, arguments?: string }} d */
    toolCall(d) {
      toolCard(d.id, d.name, d.arguments);
    },
    /**
     * A call that waits for a person: on its card, the call as it will run (the gate's repaired arguments),
     * what it would change, an optional reason, Approve and Deny. Keyboard: the card takes the focus on
     * Approve; Tab reaches the reason and Deny; Enter in the reason denies with it.
     * @param {ApprovalRequest} d
     * @param {Decide} decide
     */
    approvalRequired(d, decide) {
      const entry = awaiting(d.toolCallId, d.name, 'waiting for you');
      const { card } = entry;
      const box = el('section', 'approval');
      box.setAttribute('role', 'group');
      const title = el('p', 'approval-title');
      title.id = `approval-${d.approvalId}`;
      title.append('Run ', el('code', '', d.name), '? It waits for your approval.');
      box.setAttribute('aria-labelledby', title.id);
      box.append(title, details('arguments, as it will run', JSON.stringify(d.arguments, null, 2)));
      /** @type {HTMLDetailsElement} */ (box.lastChild).open = true;
      for (const diff of d.diffs ?? []) box.append(diffView(diff));
      const reasonLabel = el('label', 'approval-reason');
      const reason = el('input');
      reason.type = 'text';
      reason.maxLength = 1000;
      reason.placeholder = 'optional: why (the agent reads it)';
      reasonLabel.append('Reason ', reason);
      const approve = el('button', 'primary approve', 'Approve');
      const deny = el('button', 'danger deny', 'Deny');
      approve.type = deny.type = 'button';
      const status = el('p', 'approval-status');
      status.setAttribute('role', 'status');
      const expires = new Date(d.expiresAt);
      const actions = el('div', 'approval-actions');
      actions.append(approve, deny);
      box.append(reasonLabel, actions, status);
      if (!Number.isNaN(expires.getTime())) box.append(el('p', 'approval-expiry muted', `Expires at ${expires.toLocaleTimeString()} if nobody decides.`));
      /** @param {boolean} approved */
      const send = async (approved) => {
        approve.disabled = deny.disabled = reason.disabled = true;
        status.textContent = approved ? 'Approving…' : 'Denying…';
        const answer = await decide(approved, reason.value.trim());
        if (answer.ok) {
          status.textContent = approved ? 'Approved: the call runs.' : 'Denied: the agent is told.';
          return;
        }
        status.textContent = answer.message;
        status.setAttribute('role', 'alert');
        if (!answer.final) approve.disabled = deny.disabled = reason.disabled = false;
      };
      approve.addEventListener('click', () => send(true));
      deny.addEventListener('click', () => send(false));
      reason.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && !e.isComposing) {
          e.preventDefault();
          send(false);
        }
      });
      entry.approval = box;
      page.stickToBottom(() => card.append(box));
      approve.focus({ preventScroll: true });
    },
    /**
     * A server's question for the person (MCP elicitation): a form drawn from its flat schema (text,
     * number, checkbox, a select for an enum), or, in URL mode, a link the person opens themselves.
     * @param {InputRequest} d
     * @param {AnswerInput} answer
     */
    inputRequired(d, answer) {
      const entry = awaiting(d.toolCallId, d.name, 'asks you');
      const { card } = entry;
      const box = el('form', 'approval input');
      const title = el('p', 'approval-title');
      title.id = `input-${d.inputId}`;
      title.append('The server ', el('code', '', d.server), ' asks, before ', el('code', '', d.tool), ' runs:');
      box.setAttribute('aria-labelledby', title.id);
      box.append(title, el('p', 'input-message', d.message));
      /** @type {Array<() => [string, unknown] | null>} */
      const readers = [];
      if (d.mode === 'url' && d.url) {
        const link = el('a', 'input-url', d.url);
        link.href = d.url;
        link.target = '_blank';
        link.rel = 'noopener noreferrer';
        box.append(el('p', 'muted', 'Open this page yourself, then say Done:'), link);
      } else {
        const schema = /** @type {{ properties?: Record<string, any>, required?: string[] }} */ (d.requestedSchema ?? {});
        const required = new Set(schema.required ?? []);
        for (const [name, field] of Object.entries(schema.properties ?? {}).slice(0, MAX_FORM_FIELDS)) {
          const label = el('label', 'input-field');
          label.append(`${field.title || name}${required.has(name) ? '' : ' (optional)'} `);
          if (field.type === 'boolean') {
            const box = el('input');
            box.type = 'checkbox';
            box.checked = field.default === true;
            label.prepend(box);
            readers.push(() => [name, box.checked]);
          } else if (Array.isArray(field.enum)) {
            const select = el('select');
            if (!required.has(name)) select.append(el('option', '', ''));
            for (const v of field.enum) {
              const option = el('option', '', String(v));
              option.value = String(v);
              select.append(option);
            }
            label.append(select);
            readers.push(() => (select.value === '' ? null : [name, select.value]));
          } else {
            const input = el('input');
            const numeric = field.type === 'number' || field.type === 'integer';
            input.type = numeric ? 'number' : field.format === 'email' ? 'email' : field.format === 'date' ? 'date' : 'text';
            if (numeric && field.type === 'integer') input.step = '1';
            if (typeof field.maxLength === 'number') input.maxLength = field.maxLength;
            input.required = required.has(name);
            label.append(input);
            readers.push(() => (input.value === '' ? null : [name, numeric ? Number(input.value) : input.value]));
          }
          if (field.description) label.append(el('span', 'muted', ` ${field.description}`));
          box.append(label);
        }
      }
      const accept = el('button', 'primary approve', d.mode === 'url' ? 'Done' : 'Send');
      const decline = el('button', 'danger deny', 'Decline');
      const cancel = el('button', '', 'Cancel');
      accept.type = 'submit';
      decline.type = cancel.type = 'button';
      const status = el('p', 'approval-status');
      status.setAttribute('role', 'status');
      const actions = el('div', 'approval-actions');
      actions.append(accept, decline, cancel);
      box.append(actions, status);
      const expires = new Date(d.expiresAt);
      if (!Number.isNaN(expires.getTime())) box.append(el('p', 'approval-expiry muted', `Expires at ${expires.toLocaleTimeString()} if nobody answers.`));
      const controls = () => [...box.querySelectorAll('input, select, button')].map((c) => /** @type {HTMLInputElement} */ (c));
      /** @param {'accept' | 'decline' | 'cancel'} action */
      const send = async (action) => {
        for (const c of controls()) c.disabled = true;
        status.textContent = 'Sending…';
        const content = action === 'accept' && d.mode !== 'url' ? Object.fromEntries(readers.map((r) => r()).filter((x) => x !== null)) : undefined;
        const sent = await answer(content ? { action, content } : { action });
        if (sent.ok) {
          status.textContent = action === 'accept' ? 'Sent: the server goes on with your answer.' : 'Sent: the server and the agent are told.';
          return;
        }
        status.textContent = sent.message;
        status.setAttribute('role', 'alert');
        if (!sent.final) for (const c of controls()) c.disabled = false;
      };
      box.addEventListener('submit', (e) => {
        e.preventDefault();
        send('accept');
      });
      decline.addEventListener('click', () => send('decline'));
      cancel.addEventListener('click', () => send('cancel'));
      entry.approval = box;
      page.stickToBottom(() => card.append(box));
      /** @type {HTMLElement} */ (box.querySelector('input, select') ?? accept).focus({ preventScroll: true });
    },
    /** @param {CardResult} d */
    toolResult(d) {
      const entry = tools.get(d.id) || toolCard(d.id, d.name);
      const { card, head, verdict } = entry;
      // A call a person denied (or let expire) never ran: its one badge says so, not the gate's "passed" beside it.
      const refused = d.approval === 'denied' || d.approval === 'expired' ? d.approval : null;
      if (d.approval) {
        // The decision replaces the buttons; the badge says what it was.
        entry.approval?.remove();
        entry.approval = undefined;
        card.dataset.approval = d.approval;
        if (!refused) head.append(el('span', `approval-badge ${d.approval}`, APPROVAL_TEXT[d.approval] || d.approval));
      } else if (entry.approval?.classList.contains('input')) {
        // A server's question was answered (or not): the result replaces the form, and says what came of it.
        entry.approval.remove();
        entry.approval = undefined;
        card.dataset.approval = 'answered';
      }
      card.dataset.verdict = d.verdict;
      card.dataset.ok = String(d.ok);
      const label = { pass: 'passed', repaired: 'repaired', blocked: 'blocked', ran: 'ran' }[d.verdict] || d.verdict;
      verdict.className = `verdict ${refused ?? d.verdict}`;
      verdict.textContent = refused ? APPROVAL_TEXT[refused] : label;
      if (d.derived) {
        card.dataset.history = 'derived';
        verdict.title =
          d.verdict === 'ran'
            ? 'From the history: the call passed the gate and ran (whether it was repaired first is not kept there)'
            : 'From the history: the call was refused before it ran';
      }
      // A denied or expired call did not fail: it never ran, and its badge says why.
      if (d.verdict !== 'blocked' && !d.ok && (!d.approval || d.approval === 'approved')) head.append(el('span', 'verdict failed', 'failed'));
      if (d.category && d.category !== 'valid') head.append(el('span', 'category', d.category.replace(/_/g, ' ')));
      if (typeof d.durationMs === 'number') head.append(el('span', 'duration', `${d.durationMs} ms`));
      page.stickToBottom(() => {
        if (d.repairs?.length) {
          card.append(
            listBlock(
              'repairs',
              'Repaired before running:',
              d.repairs.map((r) => {
                /** @type {Node[]} */
                const parts = [el('code', '', r.path), document.createTextNode(` ${String(r.kind).replace(/_/g, ' ')}`)];
                // A dropped value has no "to": say what became of it instead of an arrow to nothing.
                if (r.to !== undefined) {
                  if (r.from !== undefined) parts.push(document.createTextNode(': '), el('code', '', r.from), document.createTextNode(' → '));
                  else parts.push(document.createTextNode(': '));
                  parts.push(el('code', '', r.to));
                } else if (r.kind === 'drop_unknown') {
                  parts.push(document.createTextNode(': not a parameter of this tool; dropped and recorded as a feature request'));
                } else if (r.from !== undefined) {
                  parts.push(document.createTextNode(': '), el('code', '', r.from), document.createTextNode(' dropped'));
                }
                return parts;
              }),
            ),
          );
        }
        if (refused) {
          // The person's own words first; what the model was told, on request.
          const why = d.reason
            ? `Your reason: ${d.reason}`
            : refused === 'denied'
              ? 'Denied without a reason.'
              : 'Nobody decided in time; it counts as denied.';
          card.append(el('p', 'decision-reason', why));
          if (d.error) card.append(details('what the agent was told', d.error));
        } else if (d.error) card.append(el('p', 'reason', d.error));
        if (d.suggestions?.length) {
          card.append(listBlock('suggestions', 'Suggested to the model:', d.suggestions));
        }
        for (const diff of d.diffs ?? []) card.append(diffView(diff));
        if (d.ok && d.result !== undefined) {
          card.append(details('result', typeof d.result === 'string' ? d.result : JSON.stringify(d.result, null, 2)));
        }
      });
    },
    /**
     * @param {string} kind
     * @param {string} text
     */
    notice(kind, text) {
      endSegment();
      const n = el('div', `notice ${kind}`, text);
      if (kind === 'error') n.setAttribute('role', 'alert');
      add(n);
    },
    /** @param {string} [text] */
    end(text) {
      endSegment();
      // A card still waiting when the turn ends (stopped, or ended while it waited) can no longer be decided.
      for (const entry of tools.values()) {
        if (!entry.approval) continue;
        entry.approval.remove();
        entry.approval = undefined;
        entry.verdict.className = 'verdict pending';
        entry.verdict.textContent = 'not decided';
        entry.card.dataset.approval = 'ended';
      }
      if (text) add(el('div', 'turn-end', text));
    },
  };
}
