// The one place that owns the walkthrough's settings and the URL (query and fragment). Controls call
// update(); renderers never read the URL or change settings. Every change goes through validateSettings(), so an
// invalid value can never reach the engine from here.
import { isCustomMask } from './features/hands-on/hands-on-settings';
import { DEFAULT_SETTINGS, settingsFromParams, settingsToQuery, validateSettings, withImpliedWeights, type Settings } from './settings';
import {
  changeTrainSettings,
  DEFAULT_TRAIN_SETTINGS,
  TRAIN_PARAMS,
  trainSettingsFrom,
  trainSettingsTo,
  type TrainSettings,
  type ValidatedTrainSettings,
} from './features/training/train-settings';

export type HistoryMode = 'push' | 'replace' | 'none';

export interface StateChange {
  settings: Settings;
  /** What validation changed, for the page's notice area. */
  notices: string[];
}

type Listener = (change: StateChange) => void;

/** A change of the "Train it yourself" settings: a run of their own, apart from the walkthrough's model. */
export interface TrainingChange {
  settings: TrainSettings;
  notices: string[];
}

type TrainingListener = (change: TrainingChange) => void;

/** A change of training settings as given: loosely typed values from a form field or an attribute. */
export type RawTrainingChange = Partial<Record<keyof TrainSettings, string | number | boolean | null | undefined>>;

export class WalkthroughState {
  private current: Settings;
  private listeners = new Set<Listener>();
  private currentTraining: TrainSettings;
  private trainingListeners = new Set<TrainingListener>();
  private trainingNotices: string[];
  private lastPush = -Infinity; // the first push is never merged, however soon after load

  /** @param syncUrl  false for embedded elements, whose settings come from attributes instead. */
  constructor(
    private readonly syncUrl: boolean,
    initial: Partial<Settings> = {},
    /** The training settings an element's attributes give (the URL's train_* parameters where syncUrl). */
    initialTraining: ValidatedTrainSettings = { settings: DEFAULT_TRAIN_SETTINGS, notices: [] },
  ) {
    const fromUrl = syncUrl ? settingsFromParams(new URLSearchParams(location.search)) : { settings: { ...DEFAULT_SETTINGS }, notices: [] };
    const validated = validateSettings(withImpliedWeights(initial), fromUrl.settings);
    this.current = validated.settings;
    this.pendingNotices = [...fromUrl.notices, ...validated.notices];
    const training = syncUrl ? trainingFromUrl() : initialTraining;
    this.currentTraining = training.settings;
    this.trainingNotices = training.notices;
    if (syncUrl) {
      this.writeUrl('replace');
      window.addEventListener('popstate', () => {
        const restored = settingsFromParams(new URLSearchParams(location.search));
        this.current = restored.settings;
        this.emit(restored.notices);
        const restoredTraining = trainingFromUrl();
        if (!sameTraining(restoredTraining.settings, this.currentTraining)) {
          this.currentTraining = restoredTraining.settings;
          this.emitTraining(restoredTraining.notices);
        }
      });
    }
  }

  private pendingNotices: string[];

  get settings(): Settings {
    return this.current;
  }

  /** Notices from the initial URL, delivered to the first subscriber. */
  takeInitialNotices(): string[] {
    const notices = this.pendingNotices;
    this.pendingNotices = [];
    return notices;
  }

  /** The "Train it yourself" settings (read-only copy). */
  get training(): TrainSettings {
    return { ...this.currentTraining };
  }

  /** Notices from the initial URL's train_* parameters, delivered to the training step when it mounts. */
  takeTrainingNotices(): string[] {
    const notices = this.trainingNotices;
    this.trainingNotices = [];
    return notices;
  }

  subscribeTraining(listener: TrainingListener): () => void {
    this.trainingListeners.add(listener);
    return () => this.trainingListeners.delete(listener);
  }

  /**
   * Applies a change of training settings, validated (features/training/train-settings.ts): a new task brings its recipe.
   * Listeners hear of every change, and of a change that only produced notices (a refused value).
   */
  updateTraining(change: RawTrainingChange, history: HistoryMode = 'push'): void {
    const validated = changeTrainSettings(this.currentTraining, change);
    if (sameTraining(validated.settings, this.currentTraining) && validated.notices.length === 0) return;
    this.currentTraining = validated.settings;
    if (this.syncUrl && history !== 'none') this.writeUrl(history);
    this.emitTraining(validated.notices);
  }

  /** Replaces the training settings with already validated ones (an element's attributes), saying their notices. */
  setTraining({ settings, notices }: ValidatedTrainSettings): void {
    if (sameTraining(settings, this.currentTraining) && notices.length === 0) return;
    this.currentTraining = { ...settings };
    this.emitTraining(notices);
  }

  private emitTraining(notices: string[]): void {
    for (const listener of this.trainingListeners) listener({ settings: this.training, notices });
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Applies a partial change. 'push' adds a history entry (a committed change: a choice, Enter, leaving
   * a field), 'replace' rewrites the current one, 'none' leaves the URL for a later commit (typing:
   * the figures follow each key, the history gets one entry per edit). Slider-like rapid pushes (within
   * a second of the last one) do not flood the back button with one entry per step.
   */
  update(change: Partial<Settings>, history: HistoryMode = 'push'): void {
    const validated = validateSettings(
      { ...this.current, ...withMaskRule(withImpliedWeights(change, this.current)) } as Partial<
        Record<keyof Settings, string | number | boolean>
      >,
      this.current,
    );
    const next = validated.settings;
    const same = (Object.keys(next) as (keyof Settings)[]).every((key) => next[key] === this.current[key]);
    if (same && validated.notices.length === 0) {
      // Committing settings already shown (typed with 'none'): the URL still has to catch up.
      if (this.syncUrl && history === 'push') this.writeUrl('push');
      return;
    }
    this.current = next;
    if (this.syncUrl && history !== 'none') this.writeUrl(history);
    this.emit(validated.notices);
  }

  private urlRetry: ReturnType<typeof setTimeout> | undefined;

  /** The settings in force as a query string, as the URL holds them (walkthrough and training run). */
  private query(): string {
    const training = new URLSearchParams(trainSettingsTo(this.currentTraining, TRAIN_PARAMS)).toString();
    return [settingsToQuery(this.current), training].filter(Boolean).join('&');
  }

  /** A link to this page's section `fragment` with the settings in force: a section's "Copy link". */
  linkTo(fragment: string): string {
    const params = this.query();
    return `${location.origin}${location.pathname}${params ? `?${params}` : ''}#${encodeURIComponent(fragment)}`;
  }

  private writeUrl(mode: 'push' | 'replace'): void {
    clearTimeout(this.urlRetry);
    const params = this.query();
    const url = `${location.pathname}${params ? `?${params}` : ''}${location.hash}`;
    if (url === `${location.pathname}${location.search}${location.hash}`) return;
    const now = performance.now();
    const before = location.href;
    try {
      if (mode === 'push' && now - this.lastPush > 1000) history.pushState(null, '', url);
      else history.replaceState(null, '', url);
      if (mode === 'push') this.lastPush = now;
    } catch {
      // Browsers limit history calls (Firefox throws SecurityError past about 100 in 10 s: a long drag,
      // fast typing). The settings are already applied; the link is written again below.
    }
    // Chromium drops over-limit calls without throwing: if nothing changed, retry later with the latest settings.
    if (location.href === before) this.urlRetry = setTimeout(() => this.writeUrl('replace'), 1000);
  }

  private emit(notices: string[]): void {
    for (const listener of this.listeners) listener({ settings: this.current, notices });
  }
}

function trainingFromUrl() {
  const params = new URLSearchParams(location.search);
  return trainSettingsFrom((name) => params.get(name), TRAIN_PARAMS);
}

function sameTraining(a: TrainSettings, b: TrainSettings): boolean {
  return (Object.keys(a) as (keyof TrainSettings)[]).every((key) => a[key] === b[key]);
}

/**
 * The causal checkbox and a custom mask (step 7) are one choice: ticking or unticking the checkbox
 * replaces a custom mask, and choosing a custom mask unticks the checkbox.
 */
function withMaskRule(change: Partial<Settings>): Partial<Settings> {
  if (change.causal !== undefined && change.mask === undefined) return { ...change, mask: 'none' };
  if (change.mask !== undefined && isCustomMask(change.mask) && change.causal === undefined) return { ...change, causal: false };
  return change;
}

/**
 * The step the URL's fragment names ("#causal" -> "causal"), decoded; '' without one. Not a setting: the
 * walkthrough element scrolls to that step, since hash links cannot see into its shadow root.
 */
export function fragmentStep(): string {
  const raw = location.hash.slice(1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // a malformed escape ("#%E0%A4") names no step; left as typed
  }
}

/** Calls `listener` with fragmentStep() after every change of the fragment; returns the unsubscribe. */
export function onFragmentChange(listener: (step: string) => void): () => void {
  const onHash = () => listener(fragmentStep());
  window.addEventListener('hashchange', onHash);
  return () => window.removeEventListener('hashchange', onHash);
}
