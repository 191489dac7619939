// Chromium trace events as the page benches read them (the walk and the long-context tasks): what a
// long task spent its time on.

export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string; data?: { message?: string; url?: string } };
}

/** A main-thread task in the trace: Chromium 156 names it after the scheduler that runs it. */
const TASK_EVENTS = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

/**
 * The page's renderer main thread in a trace: of the threads named CrRendererMain (about:blank's and
 * any other renderer's too), the one with the most task time. `tasks` are its top-level tasks, `all`
 * every complete event on it, for topOfTask.
 */
export function mainThreadTasks(events: TraceEvent[]): { tasks: TraceEvent[]; all: TraceEvent[] } {
  let best: { tasks: TraceEvent[]; all: TraceEvent[] } = { tasks: [], all: [] };
  let bestTime = -1;
  for (const thread of events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')) {
    const all = events.filter((e) => e.pid === thread.pid && e.tid === thread.tid && e.ph === 'X' && e.dur !== undefined);
    const tasks = all.filter((e) => TASK_EVENTS.has(e.name));
    const time = tasks.reduce((sum, e) => sum + e.dur!, 0);
    if (time > bestTime) [best, bestTime] = [{ tasks, all }, time];
  }
  return best;
}

/**
 * The three names that took most of a task, counting only the outermost events inside it,
 * e.g. "EvaluateScript 80, Layout 40".
 * @param ms    an event's milliseconds on the clock the caller reports (wall: dur, CPU: tdur)
 * @param name  the name an event is counted under
 */
export function topOfTask(
  task: TraceEvent,
  all: TraceEvent[],
  ms: (e: TraceEvent) => number,
  name: (e: TraceEvent) => string = (e) => e.name,
): string {
  const end = task.ts + task.dur!;
  const inside = all.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur! <= end).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const byName = new Map<string, number>();
  let coveredUntil = -1;
  for (const e of inside) {
    if (e.ts < coveredUntil) continue; // nested in an event already counted
    coveredUntil = e.ts + e.dur!;
    byName.set(name(e), (byName.get(name(e)) ?? 0) + ms(e));
  }
  return [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([label, time]) => `${label} ${time.toFixed(0)}`)
    .join(', ');
}
