// What a walkthrough step is: metadata as data, plus a view that renders a snapshot. Steps never
// call the engine and never read the URL; the only thing they can do to the world is ask for a
// settings change through the context. What else a step needs from the page (the timing service,
// its embed code) comes through the context too, so no step imports the page's layers.
import type { EmbedCode } from '../ui/export-toolbar';
import type { Formula } from '../ui/formula';
import type { Settings } from '../settings';
import type { Snapshot } from '../snapshot';
import type { RawTrainingChange, TrainingChange } from '../state';
import type { TrainSettings } from '../features/training/train-settings';
import type { ReaderModel } from '../features/trained-model/trained';
import type { TimingService } from '../features/cost/cost-plan';
import type { TrainingService } from '../features/training/training-service';

/** "Embed this step" in a figure's menu: its panels are made by the element layer (elements/embed-code.ts). */
export type { EmbedCode, EmbedPanel } from '../ui/export-toolbar';

/** The "Train it yourself" settings, owned by the state module (the URL's train_* parameters, or attributes). */
export interface TrainingSettingsContext {
  readonly current: TrainSettings;
  /** What the initial link's or attributes' values needed changing, said once. */
  takeNotices(): string[];
  /** Ask for a change (validated by the state module; a new task brings its recipe). */
  update(change: RawTrainingChange): void;
  /** Hears every change, whoever made it (this step's form, an attribute, Back). */
  subscribe(listener: (change: TrainingChange) => void): () => void;
}

export interface StepContext {
  /** Ask for a settings change (goes through the state module's validation). */
  update(change: Partial<Settings>): void;
  /** Ask the reader to predict before some figures reveal their answer (the full walkthrough only). */
  predictions?: boolean;
  /** Times the kernels on the reader's machine (step 10's "Run it"); absent where the page offers no measurement. */
  timing?: TimingService;
  /** Trains a model in a background worker ("Train it yourself"); absent where the page offers none. */
  training?: TrainingService;
  /**
   * Shows a model the reader trained in every step that uses trained weights (null: the shipped one
   * again). Offered by the full walkthrough only, where those steps are on the same page. Resolves once
   * the walkthrough has asked for the new numbers; rejects with a reason when the model cannot be used.
   */
  useTrainedModel?: (model: ReaderModel | null) => Promise<void>;
  /**
   * Step 1's reader model (bidirectional, or causal) is needed: downloads it into the engine once and
   * reads it into the snapshot shown, which only the steps that show it draw again (snapshot.ts
   * ArrivedPart). Absent where nothing can load it (a bare mount in tests).
   */
  loadReaderModel?: (causal: boolean) => void;
  /** The training run's settings; absent in a bare mount (tests), where the step keeps its own. */
  trainingSettings?: TrainingSettingsContext;
  /**
   * This step's "Embed this step", absent where the page offers none. A step hands it to every figure
   * menu it makes (MatrixTable's `embed`, figureTools); a section without a figure menu always in reach
   * (none, or each behind a prediction) gets one "Embed this step" button at its end, from the walkthrough.
   */
  embedCode?: EmbedCode;
}

export interface StepView {
  /** Fills the step's figures from a snapshot. Called on every settings change. */
  render(snapshot: Snapshot): void;
  /**
   * The same drawing in pieces, one `next()` a piece, for a section off screen (shared/pieces.ts makes
   * both from one generator). The section shows the snapshot once the iterator is done, not before.
   */
  pieces?(snapshot: Snapshot): Iterator<void, void>;
}

export interface StepDefinition {
  /** Stable, URL-safe name: the section's anchor, the embed's step=..., the element's name. */
  id: string;
  /** Position in the article's order, 1-based. */
  number: number;
  title: string;
  /** One sentence for the table of contents and embed descriptions. */
  summary: string;
  formula?: Formula;
  /**
   * What the step's figures show: the snapshot (default); the sentence, also beside the article's example
   * (sentenceView: its note says so, and the settings bar lists it); step 1's reader model on the sentence
   * whenever a model is shown (`reader`: random weights show the sentence's own snapshot); or a model of
   * its own (training).
   */
  numbers?: 'sentence' | 'reader' | 'own';
  /**
   * Besides its numbers, it shows step 1's reader model's answer (the long-context step: that answer under
   * each pattern). Such a step, and one with `numbers: 'reader'`, is the only kind drawn again when just
   * that model's reading changes (the model arrives, its flips are found).
   */
  readerAnswer?: true;
  /**
   * Its figures are computed by the engine's later module (the tiled kernel, the long-context kernels,
   * the KV cache: engine.ts loadLater()), which the page fetches when the step is first drawn.
   */
  later?: true;
  /** Builds the step's prose and empty figures once; returns the view that fills them. */
  mount(body: HTMLElement, context: StepContext): StepView;
}
