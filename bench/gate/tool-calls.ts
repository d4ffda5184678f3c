// tool-calls corpus: structured calls from native function-calling models, scored as the bench
// corpora's ../shared/bench/README.md § "Scoring" defines: recall on invalid calls, false blocks and changes on valid ones,
// repairs that equal BFCL's gold, and repairs that do not.
import { plainSchemaValidate } from '../baselines/tool-calls-plain-schema.ts';
import { seedValidate } from '../baselines/tool-calls-seed.ts';
import { gate, isDestructive, isReadOnly, type ProposedCall, type ToolSpec, type VerdictKind } from 'rebound-gate';
import { deepEqual } from 'rebound-gate/internal';
import { defaultTools } from '../../functions/index.ts';
import {
  changedValueMatches,
  isDict,
  matchesGold,
  percentile,
  ratio,
  round,
  timeEach,
  valueMatches,
  type CorpusReport,
  type DestructiveGuesses,
  type Figures,
  type GoldCall,
  type SuggestionFigures,
} from './common.ts';

export interface Case {
  id: string;
  tools: { name: string; description?: string; parameters: ToolSpec['parameters'] }[];
  call: { name: string; arguments: string };
  expect: { valid: boolean; labels: string[]; gold: GoldCall[] | null };
  meta: { gold_kind: string; valid_kind?: string };
}

/** What a scorer decided, reduced to what the scoring needs. */
export interface Outcome {
  verdict: VerdictKind;
  name?: string;
  args?: Record<string, unknown>;
  /** What a blocked call's message offers, best first. */
  suggestions?: string[];
  /** A blocked call's category (its suggestions are tool names on phantom_tool). */
  category?: string;
  /** The tool a repaired tool name landed on. */
  guessed?: string;
}

type Scorer = (call: ProposedCall, tools: readonly ToolSpec[]) => Outcome;

const scorers: Record<string, Scorer> = {
  gate: (call, tools) => {
    const v = gate(call, tools);
    if (v.verdict === 'blocked') return { verdict: 'blocked', suggestions: v.suggestions, category: v.category };
    const guessed = v.verdict === 'repaired' && v.repairs.some((r) => r.kind === 'tool_name') ? v.call.name : undefined;
    return { verdict: v.verdict, name: v.call.name, args: v.call.args, ...(guessed ? { guessed } : {}) };
  },
  plain_schema: (call, tools) => plainSchemaValidate(call, tools),
  seed_validator: (call, tools) => seedValidate(call, tools),
};

/** The model's own arguments, as sent: undefined when they are not a JSON object (then every repaired argument counts as changed). */
function originalArguments(c: Case): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(c.call.arguments);
    return isDict(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * ../shared/bench/README.md § Scoring, repairPrecision: the gate's own changes to a repaired possible_answer call,
 * judged by the gold entries of the repaired name whose values the untouched arguments already
 * match. `undefined` when no entry judges it (the call is wrong in a way no schema can see).
 */
export function judgeRepair(c: Case, o: Outcome): boolean | undefined {
  const original = originalArguments(c) ?? {};
  const repaired = o.args ?? {};
  const untouched = Object.keys(repaired).filter((k) => Object.hasOwn(original, k) && deepEqual(original[k], repaired[k]));
  const changed = Object.keys(repaired).filter((k) => !untouched.includes(k));
  const removed = Object.keys(original).filter((k) => !Object.hasOwn(repaired, k));
  const acceptable = (g: GoldCall, k: string): unknown[] | undefined => (Object.hasOwn(g.arguments, k) ? g.arguments[k] : undefined);
  const judges = (c.expect.gold ?? []).filter((g) => g.name === o.name && untouched.every((k) => acceptable(g, k)?.some((a) => valueMatches(repaired[k], a))));
  if (judges.length === 0) return undefined;
  return judges.some(
    (g) =>
      changed.every((k) => changedValueMatches(repaired[k], acceptable(g, k) ?? [])) &&
      removed.every((k) => acceptable(g, k) === undefined || acceptable(g, k)!.includes('')),
  );
}

export function score(cases: readonly Case[], outcomes: readonly Outcome[], us: readonly number[]): Figures {
  let invalid = 0;
  let caught = 0;
  let valid = 0;
  let falseBlocks = 0;
  let validChanged = 0;
  let possible = 0;
  let repairedToGold = 0;
  let scoredRepairs = 0;
  let wrongRepairs = 0;
  let judged = 0;
  let right = 0;
  const judgedWrong: string[] = [];
  const perLabel: Record<string, { cases: number; caught: number; repaired: number; possible: number; toGold: number }> = {};
  cases.forEach((c, i) => {
    const o = outcomes[i]!;
    if (c.expect.valid) {
      valid++;
      if (o.verdict === 'blocked') falseBlocks++;
      if (o.verdict === 'repaired') validChanged++;
      return;
    }
    invalid++;
    const isCaught = o.verdict !== 'pass';
    if (isCaught) caught++;
    const kind = c.meta.gold_kind;
    const toGold = o.verdict === 'repaired' && kind === 'possible_answer' && matchesGold(o.name!, o.args!, c.expect.gold ?? []);
    if (kind === 'possible_answer') {
      possible++;
      if (toGold) repairedToGold++;
    }
    if (o.verdict === 'repaired' && (kind === 'possible_answer' || kind === 'no_call')) {
      scoredRepairs++;
      if (!toGold) wrongRepairs++;
    }
    const verdictOnRepair = o.verdict === 'repaired' && kind === 'possible_answer' ? judgeRepair(c, o) : undefined;
    if (verdictOnRepair !== undefined) {
      judged++;
      if (verdictOnRepair) right++;
      else judgedWrong.push(c.id);
    }
    for (const label of c.expect.labels) {
      perLabel[label] ??= { cases: 0, caught: 0, repaired: 0, possible: 0, toGold: 0 };
      const l = perLabel[label];
      l.cases++;
      if (isCaught) l.caught++;
      if (o.verdict === 'repaired') l.repaired++;
      if (kind === 'possible_answer') l.possible++;
      if (toGold) l.toGold++;
    }
  });
  return {
    cases: cases.length,
    recall: round(ratio(caught, invalid)),
    falseBlockRate: round(ratio(falseBlocks, valid)),
    validChangedRate: round(ratio(validChanged, valid)),
    repairedToGold: round(ratio(repairedToGold, possible)),
    wrongRepairRate: round(ratio(wrongRepairs, scoredRepairs)),
    repairPrecision: round(ratio(right, judged)),
    judgedRepairs: judged,
    judgedWrong,
    p50us: round(percentile(us, 50), 2),
    p99us: round(percentile(us, 99), 2),
    counts: {
      invalid,
      caught,
      valid,
      falseBlocks,
      validChanged,
      possibleAnswer: possible,
      repairedToGold,
      scoredRepairs,
      wrongRepairs,
      judgedRepairs: judged,
      rightRepairs: right,
    },
    perLabel: Object.fromEntries(
      Object.entries(perLabel)
        .sort()
        .map(([label, l]) => [
          label,
          {
            cases: l.cases,
            recall: round(ratio(l.caught, l.cases)),
            repaired: round(ratio(l.repaired, l.cases)),
            repairedToGold: round(ratio(l.toGold, l.possible)),
          },
        ]),
    ),
  };
}

/**
 * What the model reads when a phantom tool is blocked: how many suggestions (mean per block), and
 * for blocks whose case has gold calls, how often a gold tool is the first suggestion (and listed at
 * all). Cases without gold (no call should have been made) count in the mean only.
 */
export function phantomSuggestions(cases: readonly Case[], outcomes: readonly Outcome[]): SuggestionFigures {
  let blocks = 0;
  let offered = 0;
  let withGold = 0;
  let first = 0;
  let listed = 0;
  let withoutGold = 0;
  let offeredWithoutGold = 0;
  cases.forEach((c, i) => {
    const o = outcomes[i]!;
    if (!c.expect.labels.includes('phantom_tool') || o.verdict !== 'blocked') return;
    const s = o.suggestions ?? [];
    blocks++;
    offered += s.length;
    const gold = new Set((c.expect.gold ?? []).map((g) => g.name));
    if (gold.size === 0) {
      withoutGold++;
      offeredWithoutGold += s.length;
      return;
    }
    withGold++;
    if (s.length > 0 && gold.has(s[0]!)) first++;
    if (s.some((x) => gold.has(x))) listed++;
  });
  return {
    blocks,
    meanSuggestions: round(ratio(offered, blocks), 3),
    withGold,
    goldFirst: round(ratio(first, withGold)),
    goldListed: round(ratio(listed, withGold)),
    withoutGold,
    meanWithoutGold: round(ratio(offeredWithoutGold, withoutGold), 3),
  };
}

/** Every tool the gate guessed (a repaired name, a tool suggested on a phantom-tool block), checked against destructive tools and gold. */
export function destructiveGuesses(cases: readonly Case[], outcomes: readonly Outcome[]): DestructiveGuesses {
  const out: DestructiveGuesses = { guesses: 0, destructive: 0, destructiveNotGold: 0 };
  cases.forEach((c, i) => {
    const o = outcomes[i]!;
    const guessed = o.guessed ? [o.guessed] : o.category === 'phantom_tool' ? (o.suggestions ?? []) : [];
    const gold = new Set((c.expect.gold ?? []).map((g) => g.name));
    for (const name of guessed) {
      out.guesses++;
      const tool = c.tools.find((t) => t.name === name);
      if (!tool || !isDestructive(tool)) continue;
      out.destructive++;
      if (!gold.has(name)) out.destructiveNotGold++;
    }
  });
  return out;
}

/**
 * The corpus holds no destructive tool (none of its names has a word of DESTRUCTIVE_WORDS), so the
 * destructive figure is also taken where issue 24 found the hole: every phantom-tool call of the
 * corpus again, with this app's own workspace and memory tools (write, patch and delete destructive)
 * added to its toolset, and the names the issue reported. No gold is ever one of those tools.
 */
export function destructiveStress(cases: readonly Case[]): DestructiveGuesses & { calls: number } {
  const own: ToolSpec[] = defaultTools.map(({ run: _run, ...spec }) => spec);
  const issueNames = ['update_customer_profile', 'remove_file', 'erase_file', 'file_delete'].map((name) => ({ name, arguments: '{"path": "notes.md"}' }));
  const calls = [
    ...cases.filter((c) => c.expect.labels.includes('phantom_tool')).map((c) => ({ call: c.call, tools: c.tools as ToolSpec[] })),
    ...issueNames.map((call) => ({ call, tools: [] as ToolSpec[] })),
  ];
  const out = { calls: calls.length, guesses: 0, destructive: 0, destructiveNotGold: 0 };
  for (const { call, tools } of calls) {
    const toolset = [...tools, ...own.filter((t) => !tools.some((x) => x.name === t.name))];
    const v = gate({ id: 'c', name: call.name, arguments: call.arguments }, toolset);
    const guessed =
      v.verdict === 'repaired' && v.repairs.some((r) => r.kind === 'tool_name')
        ? [v.call.name]
        : v.verdict === 'blocked' && v.category === 'phantom_tool'
          ? v.suggestions
          : [];
    for (const name of guessed) {
      out.guesses++;
      if (!isDestructive(toolset.find((t) => t.name === name)!)) continue;
      out.destructive++;
      out.destructiveNotGold++;
    }
  }
  return out;
}

/**
 * Names one letter from a tool that acts but another word (issue 29's closing note: `preset_config` was
 * repaired to `reset_config`): the first letter added, dropped or changed, a word of the gate's verb
 * lists, a word of the toolset. Each is called with `{}` on its toolset (no tool requires anything), so
 * only the name decides; none of them means the tool.
 */
const OTHER_WORD_NAMES: ReadonlyArray<[string, string[]]> = [
  ['preset_config', ['reset_config', 'get_config']],
  ['skill_process', ['kill_process', 'list_processes']],
  ['prop_table', ['drop_table', 'describe_table']],
  ['elete_file', ['delete_file', 'read_file']],
  ['deplete_user', ['delete_user']],
  ['clone_account', ['close_account', 'get_account']],
  ['stat_job', ['start_job', 'get_job']],
  ['flash_firmware', ['flush_firmware']],
  ['exit_post', ['edit_post']],
  ['change_card', ['charge_card']],
  ['seed_invoice', ['send_invoice', 'seed_database']],
];

/** Guesses (repaired names, suggestions) from OTHER_WORD_NAMES onto a tool not known to be read-only, and onto a destructive one. */
export function otherWordGuesses(): { calls: number; guesses: number; notReadOnly: number; destructive: number } {
  const out = { calls: OTHER_WORD_NAMES.length, guesses: 0, notReadOnly: 0, destructive: 0 };
  for (const [name, names] of OTHER_WORD_NAMES) {
    const tools: ToolSpec[] = names.map((n) => ({ name: n, parameters: { type: 'object', properties: {} } }));
    const v = gate({ id: 'c', name, arguments: '{}' }, tools);
    const guessed =
      v.verdict === 'repaired' && v.repairs.some((r) => r.kind === 'tool_name') ? [v.call.name] : v.verdict === 'blocked' ? (v.suggestions ?? []) : [];
    for (const g of guessed) {
      out.guesses++;
      if (!isReadOnly({ name: g })) out.notReadOnly++;
      if (isDestructive({ name: g })) out.destructive++;
    }
  }
  return out;
}

export async function run(raw: unknown[], opts: { corpusPath: string; verbose?: boolean }): Promise<CorpusReport> {
  const cases = raw as Case[];
  const inputs = cases.map((c, i) => ({
    call: { id: `call_${i}`, name: c.call.name, arguments: c.call.arguments } satisfies ProposedCall,
    tools: c.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }) satisfies ToolSpec),
  }));
  const figures: Record<string, Figures> = {};
  for (const [name, scorer] of Object.entries(scorers)) {
    const { results, us } = timeEach(inputs, (x) => scorer(x.call, x.tools));
    figures[name] = score(cases, results, us);
    if (name === 'gate') {
      figures[name].suggestions = phantomSuggestions(cases, results);
      figures[name].destructiveGuesses = destructiveGuesses(cases, results);
      figures[name].destructiveWithOwnTools = destructiveStress(cases);
      figures[name].otherWordGuesses = otherWordGuesses();
    }
    // The ids of wrong repairs only with --verbose; baselines repair nothing.
    if (name !== 'gate' || !opts.verbose) delete figures[name].judgedWrong;
    if (name !== 'gate') delete figures[name].repairPrecision;
  }
  const { gate: g, ...baselines } = figures;
  return { corpus: 'tool-calls', ...g!, baselines };
}
