// The experiments' figures in "Train it yourself": the three preset buttons with the active one's
// explanation, the per-head score charts and role list ("Heads specialise"), and the twin runs'
// entropy chart and findings ("Why scale"). Drawn from run records (train-findings.ts); the step owns
// the runs and the settings.
import type { AttentionScores } from '../../engine/training';
import { EXPERIMENT_NAMES, experimentOf, type ExperimentName, type TrainSettings } from './train-settings';
import { el, replaceChildren, setText } from '../../ui/dom';
import { fmt, percent } from '../../ui/format';
import { describeHeads, headFindings, median, scaleFindings, type RunRecord } from './train-findings';
import { TrainChart } from './train-chart';

const LABELS: Record<ExperimentName, string> = {
  'who-is-it': 'Who is “it”?',
  heads: 'Heads specialise',
  scale: 'Why scale',
};

// Our own summary of each experiment: what to watch for. The numbers the page then quotes are the run's.
const EXPLANATIONS: Record<ExperimentName, string> = {
  'who-is-it': 'Step 1’s question: the adjective fits the animal or the place, and the model must name the noun “it” stands for.',
  heads:
    'Sequences of random symbols that repeat with a random period, in a causal model with two attention layers. ' +
    'Predicting a repeat means finding the earlier copy of the current symbol and reading what came after it. ' +
    'The charts follow, per head, how much weight goes to the previous token and how much to the token after an earlier copy; each head is named by what it measurably does.',
  scale:
    'Two identical models, same seed and same data, at dₖ = 64: one divides its scores by √dₖ, its twin does not. ' +
    'Unscaled scores spread with √dₖ, so the softmax starts almost one-hot. Compare their accuracy, how sharp their attention is (entropy) and the gradient reaching W_q.',
};

/** How many gradient reports each point of the |∇W_q| line is the median of. */
const GRADIENT_SMOOTHING = 9;

export class ExperimentPanel {
  readonly presets: HTMLElement;
  readonly explanation = el('p', { class: 'train-experiment-note' });
  readonly figures = el('div', { class: 'train-experiment-figures' });
  private readonly buttons: Record<ExperimentName, HTMLButtonElement>;
  private readonly previousChart = new TrainChart({
    label: 'layer 1: weight on the previous token',
    yMax: 1,
    format: (v) => percent(v),
    className: 'train-previous',
  });
  private readonly inductionChart = new TrainChart({
    label: 'last layer: weight after an earlier copy',
    yMax: 1,
    format: (v) => percent(v),
    className: 'train-induction',
  });
  private readonly entropyChart = new TrainChart({
    label: 'attention entropy (nats)',
    format: (v) => fmt(v, 2),
    className: 'train-entropy',
  });
  private readonly gradientChart = new TrainChart({
    label: `|∇W_q|, last layer (median of ${GRADIENT_SMOOTHING}, log)`,
    format: (v) => (v >= 0.01 ? fmt(v, 3) : v.toExponential(1)),
    className: 'train-gradient',
    log: true,
  });
  private readonly roles = el('ul', { class: 'train-roles' });
  private readonly findings = el('ul', { class: 'train-findings' });
  private readonly headFigures = el(
    'div',
    { class: 'train-charts' },
    el('figure', { class: 'figure' }, this.previousChart.element),
    el('figure', { class: 'figure' }, this.inductionChart.element),
  );
  private readonly scaleFigures = el(
    'div',
    { class: 'train-charts' },
    el('figure', { class: 'figure' }, this.entropyChart.element),
    el('figure', { class: 'figure' }, this.gradientChart.element),
  );

  constructor(choose: (settings: TrainSettings) => void, presets: Readonly<Record<ExperimentName, TrainSettings>>) {
    this.buttons = Object.fromEntries(
      EXPERIMENT_NAMES.map((name) => {
        const button = el('button', { type: 'button', class: 'button train-experiment', 'aria-pressed': 'false' }, LABELS[name]);
        button.dataset.experiment = name;
        button.addEventListener('click', () => choose({ ...presets[name] }));
        return [name, button];
      }),
    ) as Record<ExperimentName, HTMLButtonElement>;
    this.presets = el('div', { class: 'train-experiments', role: 'group', 'aria-label': 'Experiments' }, ...Object.values(this.buttons));
    this.figures.append(this.headFigures, this.scaleFigures, this.roles, this.findings);
  }

  /** The settings changed: which experiment they are, and which figures apply. */
  show(settings: TrainSettings): void {
    const active = experimentOf(settings);
    for (const name of EXPERIMENT_NAMES) this.buttons[name].setAttribute('aria-pressed', String(name === active));
    setText(
      this.explanation,
      active
        ? EXPLANATIONS[active]
        : 'Your own settings. The presets above restore an experiment; the charts below show what this run measures.',
    );
    this.headFigures.hidden = !measuresHeads(settings);
    this.scaleFigures.hidden = !settings.compare;
    this.clear();
  }

  clear(): void {
    this.previousChart.updateSeries([], 1);
    this.inductionChart.updateSeries([], 1);
    this.entropyChart.updateSeries([], 1);
    this.gradientChart.updateSeries([], 1);
    replaceChildren(this.roles);
    replaceChildren(this.findings);
  }

  /** Redraws from the runs' records: the main run, and its twin when comparing. */
  update(settings: TrainSettings, main: RunRecord, twin: RunRecord | null): void {
    const steps = settings.steps;
    const measured = main.scores.filter((s) => s.attention);
    const last = measured.at(-1)?.attention;
    if (measuresHeads(settings) && last) {
      const perHead = (pick: (a: AttentionScores, layer: number, head: number) => number, layer: number) =>
        Array.from({ length: settings.heads }, (_, head) => ({
          name: `head ${head + 1}`,
          points: measured.map((s) => [s.step, pick(s.attention!, layer, head)] as [number, number]),
          className: `train-series-${head % 4}`,
        }));
      const at = (a: AttentionScores, layer: number, head: number) => a.heads.find((h) => h.layer === layer && h.head === head)!;
      // The first layer's previous-token weight and the last layer's induction weight: where the roles appear.
      this.previousChart.updateSeries(
        perHead((a, l, h) => at(a, l, h).previousToken, 0),
        steps,
      );
      this.inductionChart.updateSeries(
        perHead((a, l, h) => at(a, l, h).induction, settings.layers - 1),
        steps,
      );
      replaceChildren(this.roles, ...describeHeads(last.heads).map((line) => el('li', {}, line)));
    }
    if (settings.compare && twin) {
      const entropy = (run: RunRecord) =>
        run.scores.filter((s) => s.attention).map((s) => [s.step, s.attention!.entropy] as [number, number]);
      const [scaled, unscaled] = settings.scale ? [main, twin] : [twin, main];
      this.entropyChart.updateSeries(
        [
          { name: 'scaled by √dₖ', points: entropy(scaled), className: 'train-scaled' },
          { name: 'not scaled', points: entropy(unscaled), className: 'train-unscaled' },
        ],
        steps,
      );
      // One batch's gradient norm jumps by decades from step to step: the line is the running median of
      // GRADIENT_SMOOTHING reports, so the two runs' levels can be told apart.
      const gradient = (run: RunRecord) =>
        run.queryGradients.map(([step], i) => {
          const window = run.queryGradients.slice(Math.max(0, i - GRADIENT_SMOOTHING + 1), i + 1).map(([, norms]) => norms.at(-1)!);
          return [step, median(window)] as [number, number];
        });
      this.gradientChart.updateSeries(
        [
          { name: 'scaled by √dₖ', points: gradient(scaled), className: 'train-scaled' },
          { name: 'not scaled', points: gradient(unscaled), className: 'train-unscaled' },
        ],
        steps,
      );
    }
  }

  /** When the run (and its twin) ended: what this run found, in its own numbers. */
  finish(settings: TrainSettings, main: RunRecord, twin: RunRecord | null): void {
    const lines: string[] = [];
    if (settings.compare && twin) {
      const [scaled, unscaled] = settings.scale ? [main, twin] : [twin, main];
      lines.push(...scaleFindings(scaled, unscaled));
    } else if (measuresHeads(settings)) lines.push(...headFindings(main));
    replaceChildren(this.findings, ...lines.map((line) => el('li', {}, line)));
  }
}

/** Per-head scores are measured for the causal task, where heads take positional roles. */
export function measuresHeads(settings: TrainSettings): boolean {
  return settings.task === 'induction';
}
