// A callback in a task of its own, for work spread over several tasks so that the page paints and
// takes input in between (the first computation and drawing over the prerendered page).

interface TaskScheduler {
  postTask(callback: () => void, options: { priority: 'user-visible' }): Promise<unknown>;
}

/**
 * `callback` in a task of its own, soon (not in idle time): scheduler.postTask where the browser has it,
 * else a message (a setTimeout(0) may be clamped to 4 ms and more). The page can paint and take input
 * between two such tasks.
 */
export function nextTask(callback: () => void): void {
  const scheduler = (globalThis as { scheduler?: Partial<TaskScheduler> }).scheduler;
  if (typeof scheduler?.postTask === 'function') {
    void scheduler.postTask(callback, { priority: 'user-visible' });
  } else if (typeof MessageChannel === 'function') {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      callback();
    };
    channel.port2.postMessage(null);
  } else {
    setTimeout(callback, 0);
  }
}
