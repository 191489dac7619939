// The page's training service (StepContext.training): each run is a fresh module worker
// (train-worker.ts) with its own engine; Reset terminates it. A worker that dies is replaced once (the
// run starts again from step 0, and the step says so); a second death ends the run with a message. Steps and figures never start threads or engines themselves.
import { engineWasmUrl } from '../../engine/wasm-url';
import { listenTo, type WorkerHandle } from '../../engine/worker-handle';
import type { TrainingConfig } from '../../engine/training';
import type { Pace, TrainRequest, TrainWorkerMessage } from './train-plan';

export interface TrainingSession {
  resume(): void;
  pause(): void;
  step(): void;
  probe(words: string[]): void;
  /** Shows the rest of the run at another pace. */
  pace(pace: Pace): void;
  /** Asks for the weights as they are now: they arrive as a 'weights' message. */
  exportWeights(): void;
  /** Ends the run and frees its worker. */
  stop(): void;
}

export interface TrainingService {
  start(
    run: { config: TrainingConfig; steps: number; probe: string[]; measure?: boolean; pace: Pace },
    report: (message: TrainWorkerMessage) => void,
  ): TrainingSession;
}

/** The training worker, as the service uses it: tests pass a fake. */
export type TrainWorkerHandle = WorkerHandle<TrainRequest, TrainWorkerMessage>;

function moduleWorker(): TrainWorkerHandle {
  return new Worker(new URL('./train-worker.ts', import.meta.url), { type: 'module' }) as unknown as TrainWorkerHandle;
}

/** How many times one run's worker is replaced after dying before the run gives up. */
export const WORKER_RESTARTS = 1;

export function workerTrainingService(createWorker: () => TrainWorkerHandle = moduleWorker): TrainingService {
  return {
    start({ config, steps, probe, measure = false, pace }, report) {
      let stopped = false;
      let restarts = 0;
      // What the worker has been told since the start, replayed to a replacement: whether it should be
      // training, the latest probe and pace. A replacement starts from step 0 (the weights died with the worker).
      let running = false;
      let words = probe;
      let shown = pace;
      let worker: TrainWorkerHandle;
      const launch = () => {
        const current = createWorker();
        worker = current;
        listenTo(
          current,
          (message) => {
            if (!stopped && worker === current) report(message);
          },
          (died) => {
            if (stopped || worker !== current) return;
            current.terminate();
            const reason = died || 'its script did not load';
            if (restarts < WORKER_RESTARTS) {
              restarts++;
              report({ type: 'restarted', message: `the training worker stopped (${reason}) and a new one was started` });
              launch();
              return;
            }
            stopped = true;
            report({ type: 'error', message: `the training worker stopped (${reason}), and again after a restart` });
          },
        );
        current.postMessage({ type: 'start', config, steps, probe: words, wasmUrl: engineWasmUrl(), measure, pace: shown });
        if (running) current.postMessage({ type: 'resume' });
      };
      launch();
      const send = (request: TrainRequest) => {
        if (stopped) return;
        if (request.type === 'resume') running = true;
        else if (request.type === 'pause' || request.type === 'step') running = false;
        else if (request.type === 'probe') words = request.words;
        else if (request.type === 'pace') shown = request.pace;
        worker.postMessage(request);
      };
      return {
        resume: () => send({ type: 'resume' }),
        pause: () => send({ type: 'pause' }),
        step: () => send({ type: 'step' }),
        probe: (next) => send({ type: 'probe', words: next }),
        pace: (next) => send({ type: 'pace', pace: next }),
        exportWeights: () => send({ type: 'export' }),
        stop() {
          stopped = true;
          worker.terminate();
        },
      };
    },
  };
}
