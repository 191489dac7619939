// A step whose code is a chunk of its own: the registry's `lazy` steps, every step after the first (the
// first screen shows step 1; going live needs its code, the rest can follow). The walkthrough knows
// such a step by its metadata alone (title, number, formula: its `-info` module) and fetches the rest
// when it first draws the step, near the viewport or in idle time after going live; until then the
// prerendered copy (or, without one, a line saying so) stays in its place. The step list is generated
// from the registry (web/tooling/step-files.ts).
import type { StepDefinition } from '../steps/types';

/** What the walkthrough shows of a step before its code is here. */
export type StepInfo = Omit<StepDefinition, 'mount'>;

export interface LazyStep extends StepDefinition {
  /** Fetches the step's code once; a failed fetch is tried again at the next call. */
  load(): Promise<void>;
}

export function lazyStep(info: StepInfo, importStep: () => Promise<StepDefinition>): LazyStep {
  let loaded: StepDefinition | null = null;
  let loading: Promise<void> | null = null;
  return {
    ...info,
    load() {
      loading ??= importStep().then(
        (step) => {
          loaded = step;
        },
        (error: unknown) => {
          loading = null;
          throw error;
        },
      );
      return loading;
    },
    mount(body, context) {
      // The walkthrough mounts a lazy step only once load() has resolved (step-renderer.ts).
      if (!loaded) throw new Error(`step ${info.id} is mounted before its code has loaded`);
      return loaded.mount(body, context);
    },
  };
}

export function isLazyStep(step: StepDefinition): step is LazyStep {
  return 'load' in step;
}

/**
 * The steps a walkthrough draws as soon as it starts: a single step, or those whose code comes with the
 * page; a lazy step of a longer walkthrough is drawn later (near the viewport, or in idle time).
 */
export function stepsDrawnAtStart(steps: readonly StepDefinition[]): StepDefinition[] {
  return steps.length === 1 ? [...steps] : steps.filter((step) => !isLazyStep(step));
}

/** The line a step shows in place while its code is on the way. */
export function loadingMessage(step: StepInfo): string {
  return `Loading step ${step.number}’s figures…`;
}

/** The line a step shows in place when its code could not be fetched, with the reason. */
export function loadFailureMessage(step: StepInfo, error: unknown, hasCopy: boolean): string {
  const reason = error instanceof Error ? error.message : String(error);
  const shown = hasCopy ? ' What you see here was computed when the page was built; the other steps are live.' : '';
  return `Step ${step.number}’s live figures could not load (${reason}).${shown} Reload the page to try again.`;
}
