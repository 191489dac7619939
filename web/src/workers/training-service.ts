// The page's training service (StepContext.training): each run is a fresh module worker
// (train-worker.ts) with its own engine; Reset terminates it. A worker that dies is reported, so the
// step can say so and start a new one. Steps and figures never start threads or engines themselves.
import { engineWasmUrl } from '../engine/engine';
import type { TrainingConfig } from '../engine/training';
import type { TrainRequest, TrainWorkerMessage } from './train-plan';

export interface TrainingSession {
  resume(): void;
  pause(): void;
  step(): void;
  probe(words: string[]): void;
  /** Asks for the weights as they are now: they arrive as a 'weights' message. */
  exportWeights(): void;
  /** Ends the run and frees its worker. */
  stop(): void;
}

export interface TrainingService {
  start(run: { config: TrainingConfig; steps: number; probe: string[] }, report: (message: TrainWorkerMessage) => void): TrainingSession;
}

/** The parts of a Worker the service uses: tests pass a fake. */
export interface TrainWorkerHandle {
  postMessage(message: TrainRequest): void;
  terminate(): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<TrainWorkerMessage>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
}

function moduleWorker(): TrainWorkerHandle {
  return new Worker(new URL('./train-worker.ts', import.meta.url), { type: 'module' }) as unknown as TrainWorkerHandle;
}

export function workerTrainingService(createWorker: () => TrainWorkerHandle = moduleWorker): TrainingService {
  return {
    start({ config, steps, probe }, report) {
      const worker = createWorker();
      let stopped = false;
      worker.addEventListener('message', (event) => {
        if (!stopped) report(event.data);
      });
      worker.addEventListener('error', (event) => {
        event.preventDefault?.();
        if (stopped) return;
        stopped = true;
        worker.terminate();
        report({ type: 'error', message: `the training worker stopped (${event.message || 'its script did not load'})` });
      });
      worker.postMessage({ type: 'start', config, steps, probe, wasmUrl: engineWasmUrl() });
      const send = (request: TrainRequest) => {
        if (!stopped) worker.postMessage(request);
      };
      return {
        resume: () => send({ type: 'resume' }),
        pause: () => send({ type: 'pause' }),
        step: () => send({ type: 'step' }),
        probe: (words) => send({ type: 'probe', words }),
        exportWeights: () => send({ type: 'export' }),
        stop() {
          stopped = true;
          worker.terminate();
        },
      };
    },
  };
}
