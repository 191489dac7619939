// What the page's services use of a module worker that runs an engine of its own (the timing run, a
// training run), and how they listen to it. Tests pass fakes of this shape. The Worker itself is made
// where its script is named (`new Worker(new URL('./x-worker.ts', import.meta.url))`), for the bundler
// finds the script only there.

/** The parts of a Worker a service uses: it sends `Request`s and hears `Message`s. */
export interface WorkerHandle<Request, Message> {
  postMessage(message: Request): void;
  terminate(): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<Message>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
}

/**
 * Hands the worker's messages to `onMessage` and its death (its script did not load, or it threw) to
 * `onError` with the browser's reason ('' when it gives none); the page reports the death itself, so
 * the browser's own report is silenced.
 */
export function listenTo<Message>(
  worker: WorkerHandle<never, Message>,
  onMessage: (message: Message) => void,
  onError: (reason: string) => void,
): void {
  worker.addEventListener('message', (event) => onMessage(event.data));
  worker.addEventListener('error', (event) => {
    event.preventDefault?.();
    onError(event.message);
  });
}
