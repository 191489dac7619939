// The page's timing service (cost-plan.ts, TimingService): each run is a fresh module worker
// (cost-worker.ts) with its own engines, started when the reader presses Run and terminated to stop.
// It lives with the worker, not in a figure, so steps and figures never start threads or engines.
import { engineWasmUrl, laterWasmUrl } from '../../engine/wasm-url';
import { listenTo, type WorkerHandle } from '../../engine/worker-handle';
import { COST_BUDGET_BYTES, type CostRunRequest, type CostWorkerMessage, type TimingService } from './cost-plan';

/** The cost worker, as the service uses it: tests pass a fake. */
export type CostWorkerHandle = WorkerHandle<CostRunRequest, CostWorkerMessage>;

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
      listenTo(
        worker,
        (message) => {
          if (!stopped) report(message);
        },
        (reason) => {
          if (!stopped) report({ type: 'unavailable', message: reason || 'the worker script did not load' });
        },
      );
      // The page's own engine URL: an author's bundler may have renamed the .wasm the worker would guess.
      worker.postMessage({ type: 'run', suite, decode, maxN, budgetBytes, wasmUrl: engineWasmUrl(), laterWasmUrl: laterWasmUrl() });
      return { stop };
    },
  };
}
