// The FlashAttention step mounted in happy-dom for the unit tests of its renderer (10-flash.test.ts)
// and of its "Run it on my machine" figure (10-flash-run.test.ts), with the reader's updates recorded.
import { mountFlash, type AutoplayClock } from '../../../web/src/features/flash/step';
import { workerTimingService, type CostWorkerHandle } from '../../../web/src/features/cost/timing-service';

export function mount(options: { createWorker?: () => CostWorkerHandle; clock?: AutoplayClock } = {}) {
  const body = document.createElement('div');
  document.body.replaceChildren(body);
  const updates: unknown[] = [];
  const timing = options.createWorker ? workerTimingService(options.createWorker) : undefined;
  const view = mountFlash(body, { update: (change) => updates.push(change), timing }, { clock: options.clock });
  return { body, view, updates };
}

export const q = <T extends Element = HTMLElement>(root: ParentNode, selector: string) => root.querySelector(selector) as T;
export const position = (body: HTMLElement) => Number(q(body, '.flash-stepper').dataset.position);
export const total = (body: HTMLElement) => Number(q(body, '.flash-stepper').dataset.total);
