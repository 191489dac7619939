// One step mounted alone in a fresh body, as the walkthrough mounts it: the step tests render
// snapshots into it and read back what it shows and which settings changes it asked for.
import type { Settings } from '../../web/src/settings';
import type { StepDefinition } from '../../web/src/steps/types';

/** @param update  the context's update; by default each asked change is recorded in `changes`. */
export function mountStep(step: StepDefinition, update?: (change: Partial<Settings>) => void) {
  const body = document.createElement('div');
  document.body.replaceChildren(body);
  const changes: Partial<Settings>[] = [];
  const view = step.mount(body, { update: update ?? ((change) => changes.push(change)) });
  return { body, view, changes };
}
