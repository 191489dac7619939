// The training worker: its own engine and one training run (train-plan.ts's TrainingRun), so the
// page stays responsive while the model trains. The page (training-service.ts) starts one worker per
// run with a TrainStartRequest and terminates it to reset: nothing of an old run survives a Reset.
import { createCoreEngine } from '../../engine/engine';
import { engineWasmUrl } from '../../engine/wasm-url';
import { Trainer } from '../../engine/training';
import { DEFAULT_PACE, isPace, TrainingRun, type TrainRequest, type TrainStartRequest, type TrainWorkerMessage } from './train-plan';

const scope = self as unknown as {
  postMessage(message: TrainWorkerMessage): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<TrainRequest>) => void): void;
};

const post = (message: TrainWorkerMessage) => scope.postMessage(message);
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

let run: TrainingRun | null = null;
/** Controls that arrive while the engine is still loading wait for the run. */
let pending: TrainRequest[] = [];

async function start(request: TrainStartRequest): Promise<void> {
  const url = typeof request.wasmUrl === 'string' && request.wasmUrl ? request.wasmUrl : engineWasmUrl();
  // Training runs in the engine's core: the later module (and its glue) stays out of this worker.
  const engine = await createCoreEngine({ wasmUrl: url });
  const trainer = Trainer.create(engine, request.config);
  const { parameterCount, config } = trainer.describe();
  post({ type: 'ready', parameterCount, batch: config.batch ?? 0 });
  run = new TrainingRun(trainer, {
    steps: request.steps,
    probe: request.probe,
    post,
    measure: request.measure === true,
    pace: isPace(request.pace) ? request.pace : DEFAULT_PACE,
  });
  run.start();
  const queued = pending;
  pending = [];
  for (const control of queued) applyControl(control);
}

function applyControl(request: TrainRequest): void {
  if (!run) {
    pending.push(request);
    return;
  }
  if (request.type === 'resume') void run.resume();
  else if (request.type === 'pause') run.pauseRun();
  else if (request.type === 'step') run.stepOnce();
  else if (request.type === 'probe') run.setProbe(request.words);
  else if (request.type === 'pace') run.setPace(isPace(request.pace) ? request.pace : DEFAULT_PACE);
  else if (request.type === 'export') {
    const exported = run.exportWeights();
    if (exported) scope.postMessage({ type: 'weights', ...exported });
    else post({ type: 'error', message: 'the run stopped on a broken model, so its weights are not offered' });
  }
}

scope.addEventListener('message', (event) => {
  const request = event.data;
  if (request.type === 'start') start(request).catch((error: unknown) => post({ type: 'error', message: describe(error) }));
  else applyControl(request);
});
