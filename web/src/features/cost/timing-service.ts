// The page's timing service (cost-plan.ts, TimingService): each run is a fresh module worker
// (cost-worker.ts) with its own engines, started when the reader presses Run and terminated to stop.
// It lives with the worker, not in a figure, so steps and figures never start threads or engines.
import { engineWasmUrl } from '../../engine/wasm-url';
import { COST_BUDGET_BYTES, type CostRunRequest, type CostWorkerMessage, type TimingService } from './cost-plan';

/** The parts of a Worker the service uses: tests pass a fake. */
export interface CostWorkerHandle {
  postMessage(message: CostRunRequest): void;
  terminate(): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<CostWorkerMessage>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
}

function moduleWorker(): CostWorkerHandle {
  return new Worker(new URL('./cost-worker.ts', import.meta.url), { type: 'module' }) as unknown as CostWorkerHandle;
}

/** @param createWorker  makes the worker of one run; the real cost worker unless a test passes a fake. */
export function workerTimingService(createWorker: () => CostWorkerHandle = moduleWorker): TimingService {
  return {
    start({ maxN, suite, budgetBytes = COST_BUDGET_BYTES, decode }, report) {
      const worker = createWorker();
      let stopped = false;
      const stop = () => {
        stopped = true;
        worker.terminate();
      };
      worker.addEventListener('message', (event) => {
        if (!stopped) report(event.data);
      });
      worker.addEventListener('error', (event) => {
        event.preventDefault?.();
        if (!stopped) report({ type: 'unavailable', message: event.message || 'the worker script did not load' });
      });
      // The page's own engine URL: an author's bundler may have renamed the .wasm the worker would guess.
      worker.postMessage({ type: 'run', suite, decode, maxN, budgetBytes, wasmUrl: engineWasmUrl() });
      return { stop };
    },
  };
}
