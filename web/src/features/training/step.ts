// Train it yourself: a fresh model, from random weights, trained in a worker in the reader's tab
// (StepContext.training), with a live loss curve, held-out accuracy and the probe sentence's
// attention sharpening as it learns, at a pace the reader picks (train-plan.ts's PACES: the maths
// runs at full speed, the run is shown over about 20 s by default); three experiments as presets
// (features/training/train-experiments.ts), with a twin run for "Why scale"; and "use these weights" for the
// walkthrough. The step never touches the engine: it asks the training service for runs and draws
// what they report. Changing a setting ends the run (it belongs to the old settings); Reset does too.
// It is the one owner of the runs' life cycle (two sessions, their messages, pause/step/reset, pace,
// restarts); its form is settings-form.ts, and what it draws lives in train-chart.ts,
// train-experiments.ts and train-findings.ts.
import { BarChart } from '../../ui/bars';
import { controlForm, el, replaceChildren, setText } from '../../ui/dom';
import { fmt, groupDigits, percent, quoted } from '../../ui/format';
import { OPTIMIZER_LABELS, trainField, TrainSettingsForm } from './settings-form';
import { formatLoss, TrainChart } from './train-chart';
import { trainedRecord, useProblem } from './use-weights';
import { ExperimentPanel, measuresHeads } from './train-experiments';
import { answerFinding, duration, ownRunSummary, targetFinding, type RunRecord } from './train-findings';
import { noticeArea } from '../../notices';
import { numbersLine } from '../../steps/shared/figure';
import type { RawTrainingChange, TrainingChange } from '../../state';
import {
  changeTrainSettings,
  DEFAULT_PROBES,
  DEFAULT_TRAIN_SETTINGS,
  EXPERIMENTS,
  MAX_TRAIN_STEPS,
  MIN_LEARNING_RATE,
  trainingConfig,
  type TrainSettings,
} from './train-settings';
import { TRAINING_LIMITS } from '../../engine/limits';
import {
  DEFAULT_PACE,
  PACE_NAMES,
  pacedMs,
  PACES,
  type ExportedWeights,
  type Pace,
  type ProbeReading,
  type TrainWorkerMessage,
} from './train-plan';
import type { TrainingSession } from './training-service';
import type { StepDefinition } from '../../steps/types';
import { trainStepInfo } from './step-info';

/** The adjective the swap button trades, in both directions: one fits the animal, the other the road. */
const ADJECTIVE_SWAP: Record<string, string> = { tired: 'wide', wide: 'tired', hungry: 'busy', busy: 'hungry' };

type Phase = 'idle' | 'loading' | 'running' | 'paused' | 'finished' | 'stopped';

/** A time ahead, to the second: it is an estimate. */
function about(ms: number): string {
  return ms < 1000 ? duration(ms) : `${Math.round(ms / 1000)} s`;
}

function words(sentence: string): string[] {
  return sentence.split(/\s+/).filter(Boolean).slice(0, TRAINING_LIMITS.maxPositions);
}

export const trainStep: StepDefinition = {
  ...trainStepInfo,
  mount(body, context) {
    let settings: TrainSettings = context.trainingSettings?.current ?? { ...DEFAULT_TRAIN_SETTINGS };
    let probe = DEFAULT_PROBES[settings.task];
    let session: TrainingSession | null = null;
    let phase: Phase = 'idle';
    // How runs are shown: the reader's choice, kept across runs and settings (it is not in the link).
    let pace: Pace = DEFAULT_PACE;
    let done = 0;
    let losses: [number, number][] = [];
    let scores: [number, number][] = [];
    // What the experiments read: the main run's record and, when comparing, its twin's (scaling switched).
    let record: RunRecord = { scores: [], queryGradients: [] };
    let twin: { session: TrainingSession | null; record: RunRecord; losses: [number, number][]; finished: boolean } | null = null;
    let mainFinished: Extract<TrainWorkerMessage, { type: 'finished' }> | null = null;
    const notice = noticeArea('train-notices');

    const form = new TrainSettingsForm((change) => ask(change));
    const experiments = new ExperimentPanel((preset) => ask(preset), EXPERIMENTS);

    const startButton = el('button', { type: 'button', class: 'button train-start' }, 'Start');
    const stepButton = el('button', { type: 'button', class: 'button train-step' }, 'Step');
    const resetButton = el('button', { type: 'button', class: 'button train-reset' }, 'Reset');
    const speed = el(
      'select',
      { class: 'field train-speed' },
      ...PACE_NAMES.map((name) => el('option', { value: name }, PACES[name].label)),
    );
    speed.value = pace;
    const progress = el('progress', { class: 'train-progress', max: settings.steps, value: 0, 'aria-label': 'Training progress' });
    const progressText = el('p', { class: 'train-progress-text', 'aria-live': 'off' });
    const status = el('p', { class: 'train-status', role: 'status' });
    const whoseNumbers = numbersLine();
    const lossChart = new TrainChart({ label: 'training loss', format: formatLoss, className: 'train-loss' });
    const accuracyChart = new TrainChart({ label: 'held-out accuracy', yMax: 1, format: (v) => percent(v), className: 'train-accuracy' });

    const probeInput = el('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', class: 'field train-probe-input' });
    probeInput.id = `train-probe-${Math.random().toString(36).slice(2, 8)}`;
    const swapButton = el('button', { type: 'button', class: 'button train-swap' }, 'Swap the adjective');
    const prediction = el('p', { class: 'train-prediction' });
    const answer = el('p', { class: 'train-answer' });
    // "Use these weights": offered where the walkthrough's other steps are on the page.
    const useButton = el('button', { type: 'button', class: 'button train-use' }, 'Use these weights in the walkthrough');
    const shippedButton = el('button', { type: 'button', class: 'button train-use-shipped' }, 'Back to the shipped model');
    const useNote = el('p', { class: 'train-use-note', role: 'status' });
    const useRow = el('div', { class: 'train-use-row' }, useButton, shippedButton, useNote);
    useRow.hidden = !context.useTrainedModel;
    shippedButton.hidden = true;
    const headCharts = el('div', { class: 'train-heads' });
    let charts: BarChart[] = [];
    let parameterCount = 0;
    let useProblemShown: string | null = null;
    let batch = 0;

    body.append(
      el(
        'p',
        {},
        'The trained model that multi-head attention and the steps after it show learned its weights this way. Start trains a copy from random numbers, in the background, testing it on sentences it never saw.',
      ),
      experiments.presets,
      experiments.explanation,
      form.element,
      controlForm({ class: 'train-buttons' }, startButton, stepButton, resetButton, trainField('train-speed', 'Speed', speed)),
      notice.element,
      progress,
      progressText,
      status,
      whoseNumbers.element,
      el(
        'div',
        { class: 'train-charts' },
        el('figure', { class: 'figure' }, lossChart.element),
        el('figure', { class: 'figure' }, accuracyChart.element),
      ),
      experiments.figures,
      controlForm(
        { class: 'train-probe', 'aria-label': 'Probe sentence' },
        el('label', { for: probeInput.id }, 'Probe sentence (its first 16 words)'),
        el('div', { class: 'train-probe-row' }, probeInput, swapButton),
      ),
      prediction,
      answer,
      headCharts,
      useRow,
    );

    const showSettings = () => {
      form.show(settings);
      whoseNumbers.show(ownRunSummary(settings));
      swapButton.hidden = settings.task !== 'who-is-it'; // only its sentences have an adjective to swap
      probeInput.value = probe;
      // Each speed says how long this run takes at it, when the reader's machine keeps up.
      for (const option of speed.options) {
        const name = option.value as Pace;
        const ms = pacedMs(settings.steps, name);
        setText(option, ms > 0 ? `${PACES[name].label} (about ${about(ms)})` : PACES[name].label);
      }
      experiments.show(settings);
    };

    const showButtons = () => {
      setText(startButton, phase === 'running' ? 'Pause' : phase === 'paused' ? 'Resume' : 'Start');
      startButton.disabled = phase === 'loading' || phase === 'finished' || phase === 'stopped';
      stepButton.disabled = !(phase === 'paused' || phase === 'idle');
      resetButton.disabled = phase === 'idle';
      const usable = useProblem(settings);
      useButton.disabled = usable !== null || !(phase === 'finished' || (phase === 'paused' && done > 0));
      useButton.title = usable ?? '';
      if (usable !== null) setText(useNote, usable);
      else if (useNote.textContent === useProblemShown) setText(useNote, '');
      useProblemShown = usable;
      body.dataset.trainPhase = phase;
      body.dataset.trainStep = String(done);
    };

    const useWeights = (exported: ExportedWeights) => {
      const use = context.useTrainedModel;
      if (!use) return;
      const record = trainedRecord(settings, exported, parameterCount, batch);
      use({ bytes: exported.bytes, record, scale: settings.scale }).then(
        () => {
          shippedButton.hidden = false;
          setText(
            useNote,
            `Steps 2–10 with trained weights now show your model (step ${exported.step}, ${percent(exported.evaluation.accuracy, 1)} held-out). ` +
              'Step 1 stays with the reader model: your run names a word of its own small vocabulary, and only a model with a pointer over the sentence’s positions can name a word of any sentence you type.',
          );
        },
        (error: unknown) => notice.show([`Your weights could not be used: ${error instanceof Error ? error.message : String(error)}.`]),
      );
    };

    const showProbe = (reading: ProbeReading) => {
      const { words: read, query } = reading;
      const attention = reading.layers.at(-1)!;
      const top = reading.top[0];
      setText(
        prediction,
        top
          ? `At ${quoted(read[query] ?? '')} the model now predicts ${quoted(top.word)} (${percent(top.probability)})` +
              (reading.top[1] ? `, then ${quoted(reading.top[1].word)} (${percent(reading.top[1].probability)}).` : '.')
          : '',
      );
      setText(answer, answerFinding(reading));
      if (charts.length !== attention.heads) {
        charts = Array.from(
          { length: attention.heads },
          (_, h) => new BarChart({ caption: `Last layer, head ${h + 1}`, labelHeader: 'word', valueHeader: 'weight', max: 1 }),
        );
        replaceChildren(headCharts, ...charts.map((c) => c.element));
      }
      const n = attention.cols;
      charts.forEach((chart, h) => {
        const row = attention.data.subarray((h * attention.rows + query) * n, (h * attention.rows + query + 1) * n);
        let best = 0;
        for (let c = 1; c < n; c++) if (row[c] > row[best]) best = c;
        chart.update(
          read.map((word, c) => ({
            label: reading.unknown[c] ? `${word} (unknown word)` : word,
            value: row[c],
            emphasis: c === best,
            muted: reading.unknown[c],
          })),
          `Last layer, head ${h + 1}: weight from ${quoted(read[query] ?? '')}`,
        );
      });
    };

    const showProgress = (elapsedMs: number, perSecond: number, leftMs: number | null) => {
      progress.max = settings.steps;
      progress.value = done;
      setText(
        progressText,
        `Step ${done} of ${settings.steps}` +
          (leftMs !== null && done < settings.steps ? ` · about ${about(leftMs)} left at this speed` : '') +
          (perSecond > 0 ? ` · your machine computes ${groupDigits(Math.round(perSecond))} steps/s (${duration(elapsedMs)} so far)` : ''),
      );
      drawCharts();
    };

    // One line per run on the loss and accuracy charts: the twin's beside the main run's when comparing.
    const drawCharts = () => {
      const name = (scaled: boolean) => (scaled ? 'scaled by √dₖ' : 'not scaled');
      const cls = (scaled: boolean) => (scaled ? 'train-scaled' : 'train-unscaled');
      if (twin) {
        const twinScores = twin.record.scores.map((s) => [s.step, s.accuracy] as [number, number]);
        lossChart.updateSeries(
          [
            { name: name(settings.scale), points: losses, className: cls(settings.scale) },
            { name: name(!settings.scale), points: twin.losses, className: cls(!settings.scale) },
          ],
          settings.steps,
        );
        accuracyChart.updateSeries(
          [
            { name: name(settings.scale), points: scores, className: cls(settings.scale) },
            { name: name(!settings.scale), points: twinScores, className: cls(!settings.scale) },
          ],
          settings.steps,
        );
      } else {
        lossChart.update(losses, settings.steps);
        accuracyChart.update(scores, settings.steps);
      }
      experiments.update(settings, record, twin?.record ?? null);
    };

    /** Both runs have ended (or the only one): the status and what the experiment found. */
    const maybeFinish = () => {
      const message = mainFinished;
      if (!message || (twin && !twin.finished)) return;
      phase = 'finished';
      setText(
        status,
        `Done: ${message.step} steps in ${duration(message.elapsedMs)} of computing, ${percent(message.accuracy, 1)} held-out accuracy. ` +
          targetFinding(settings, message, record.scores),
      );
      experiments.finish(settings, record, twin?.record ?? null);
    };

    /** The twin's messages: its own line on the charts; a failure of either run stops both. */
    const reportTwin = (message: TrainWorkerMessage) => {
      if (!twin) return;
      if (message.type === 'progress') {
        if (message.loss !== null && Number.isFinite(message.loss)) twin.losses.push([message.step, message.loss]);
        if (message.queryGradient) twin.record.queryGradients.push([message.step, message.queryGradient]);
        drawCharts();
      } else if (message.type === 'score') {
        twin.record.scores.push(message);
        drawCharts();
      } else if (message.type === 'finished') {
        twin.finished = true;
        maybeFinish();
        showButtons();
      } else if (message.type === 'diverged' || message.type === 'error') {
        report({ ...message, ...(message.type === 'diverged' ? { message: `The unscaled twin: ${message.message}` } : {}) });
      } else if (message.type === 'restarted') {
        twin.losses = [];
        twin.record = { scores: [], queryGradients: [] };
        notice.show([`The twin's training restarted: ${message.message}, so it began again from step 0.`]);
      }
    };

    const report = (message: TrainWorkerMessage) => {
      if (message.type === 'ready') {
        phase = phase === 'loading' ? 'running' : phase;
        parameterCount = message.parameterCount;
        batch = message.batch;
        setText(
          status,
          `A fresh model with ${groupDigits(message.parameterCount)} parameters, from random weights (seed ${settings.seed}).`,
        );
      } else if (message.type === 'progress') {
        done = message.step;
        if (message.loss !== null && Number.isFinite(message.loss)) losses.push([message.step, message.loss]);
        if (message.queryGradient) record.queryGradients.push([message.step, message.queryGradient]);
        showProgress(message.elapsedMs, message.stepsPerSecond, message.leftMs);
        showProbe(message.probe);
      } else if (message.type === 'paused') {
        done = message.step;
        body.dataset.trainWorker = 'paused';
      } else if (message.type === 'score') {
        scores.push([message.step, message.accuracy]);
        record.scores.push(message);
        drawCharts();
        setText(
          status,
          `Step ${message.step}: ${percent(message.accuracy, 1)} of held-out sentences right, held-out loss ${formatLoss(message.loss)}.`,
        );
      } else if (message.type === 'finished') {
        mainFinished = message;
        maybeFinish();
      } else if (message.type === 'restarted') {
        // The service replaced a dead worker: what was measured belonged to the lost run.
        done = 0;
        losses = [];
        scores = [];
        record = { scores: [], queryGradients: [] };
        showProgress(0, 0, null);
        notice.show([`Training restarted: ${message.message}, so the run began again from step 0.`]);
      } else if (message.type === 'weights') {
        useWeights(message);
      } else if (message.type === 'diverged') {
        phase = 'stopped';
        stopRuns();
        notice.show([message.message]);
      } else {
        phase = 'stopped';
        stopRuns();
        notice.show([`Training stopped: ${message.message}. Reset starts again.`]);
      }
      showButtons();
    };

    const everyRun = (act: (run: TrainingSession) => void) => {
      if (session) act(session);
      if (twin?.session) act(twin.session);
    };

    const stopRuns = () => {
      session?.stop();
      session = null;
      twin?.session?.stop();
      if (twin) twin.session = null;
    };

    const reset = () => {
      stopRuns();
      twin = null;
      mainFinished = null;
      record = { scores: [], queryGradients: [] };
      experiments.clear();
      phase = 'idle';
      delete body.dataset.trainWorker;
      done = 0;
      losses = [];
      scores = [];
      setText(status, '');
      setText(prediction, '');
      setText(answer, '');
      replaceChildren(headCharts);
      charts = [];
      showProgress(0, 0, null);
      showButtons();
    };

    const begin = (thenRun: boolean) => {
      if (!context.training) {
        notice.show(['Training needs the page’s background worker, which this page does not provide.']);
        return;
      }
      phase = thenRun ? 'loading' : 'paused';
      const measure = measuresHeads(settings) || settings.compare;
      session = context.training.start(
        { config: trainingConfig(settings), steps: settings.steps, probe: words(probe), measure, pace },
        report,
      );
      if (settings.compare) {
        // The twin: the same seed, data and settings with scaling the other way, in a worker of its own.
        const config = trainingConfig({ ...settings, scale: !settings.scale });
        twin = {
          session: context.training.start({ config, steps: settings.steps, probe: words(probe), measure, pace }, reportTwin),
          record: { scores: [], queryGradients: [] },
          losses: [],
          finished: false,
        };
      }
      if (thenRun) everyRun((run) => run.resume());
      showButtons();
    };

    startButton.addEventListener('click', () => {
      if (phase === 'idle') begin(true);
      else if (phase === 'running') {
        everyRun((run) => run.pause());
        phase = 'paused';
      } else if (phase === 'paused') {
        delete body.dataset.trainWorker;
        everyRun((run) => run.resume());
        phase = 'running';
      }
      showButtons();
    });
    stepButton.addEventListener('click', () => {
      if (phase === 'idle') begin(false);
      everyRun((run) => run.step());
    });
    speed.addEventListener('change', () => {
      pace = speed.value as Pace;
      everyRun((run) => run.pace(pace));
    });
    useButton.addEventListener('click', () => session?.exportWeights());
    shippedButton.addEventListener('click', () => {
      context.useTrainedModel?.(null).then(
        () => {
          shippedButton.hidden = true;
          setText(useNote, 'The walkthrough shows the shipped model again.');
        },
        (error: unknown) =>
          notice.show([`The shipped model could not be loaded: ${error instanceof Error ? error.message : String(error)}.`]),
      );
    });
    resetButton.addEventListener('click', () => {
      reset();
      notice.settle([]);
    });

    // A changed setting belongs to a new run: the current one ends, and the notices say what was fixed.
    // The state module owns the settings (they are in the link); this step draws what it decides.
    const apply = ({ settings: next, notices }: TrainingChange) => {
      if (!body.isConnected) {
        // A view the element has replaced (a new `controls` list) or that left the page: its run ends.
        stopRuns();
        return;
      }
      if (next.task !== settings.task) probe = DEFAULT_PROBES[next.task];
      settings = next;
      showSettings();
      reset();
      showReady();
      notice.settle(notices);
    };
    const ask = (change: RawTrainingChange) => {
      if (context.trainingSettings) context.trainingSettings.update(change);
      else apply(changeTrainSettings(settings, change));
    };
    context.trainingSettings?.subscribe(apply);

    const changeProbe = () => {
      probe = probeInput.value;
      session?.probe(words(probe));
    };
    probeInput.addEventListener('change', changeProbe);
    probeInput.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') changeProbe();
    });
    swapButton.addEventListener('click', () => {
      probeInput.value = probe
        .split(/(\s+)/)
        .map((w) => ADJECTIVE_SWAP[w.toLowerCase()] ?? w)
        .join('');
      changeProbe();
    });

    const showReady = () =>
      setText(
        status,
        `Ready: ${settings.layers} layers of ${settings.heads} heads, d_model ${settings.dModel}, ${OPTIMIZER_LABELS[settings.optimizer]} at learning rate ${fmt(settings.learningRate, 3)}, ${settings.steps} steps (at most ${MAX_TRAIN_STEPS}; learning rates from ${MIN_LEARNING_RATE} to ${TRAINING_LIMITS.maxLearningRate}).`,
      );
    showSettings();
    reset();
    showReady();
    const initial = context.trainingSettings?.takeNotices() ?? [];
    if (initial.length) notice.show(initial);
    return { render() {} };
  },
};
