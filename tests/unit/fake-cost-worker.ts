// A stand-in for the cost worker (web/src/features/cost/cost-worker.ts), shared by the unit tests of the
// figures that drive it: it records what the figure sends, and the test answers through emit().
import type { CostRunRequest, CostWorkerMessage } from '../../web/src/features/cost/cost-plan';
import type { CostWorkerHandle } from '../../web/src/features/cost/timing-service';

export class FakeWorker implements CostWorkerHandle {
  sent: CostRunRequest[] = [];
  terminated = false;
  private listeners: { message: ((event: MessageEvent<CostWorkerMessage>) => void)[]; error: ((event: ErrorEvent) => void)[] } = {
    message: [],
    error: [],
  };
  postMessage(message: CostRunRequest): void {
    this.sent.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  addEventListener(type: 'message' | 'error', listener: never): void {
    (this.listeners[type] as unknown[]).push(listener);
  }
  emit(message: CostWorkerMessage): void {
    for (const listener of this.listeners.message) listener({ data: message } as MessageEvent<CostWorkerMessage>);
  }
}
