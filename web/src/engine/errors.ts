// The engine's two kinds of failure, in their own module so that the wrapper (engine.ts) and the loading
// of its modules (wasm-loading.ts) share them without importing each other.

/** Bad input, or a load that failed: the message says which and what to do. */
export class EngineError extends Error {
  override name = 'EngineError';
}

/**
 * A call failed inside the wasm instance itself (out of memory, an abort, a trap): not bad input.
 * The instance may have leaked or corrupted memory, so the engine refuses further calls (throwing
 * EngineCrash) until restart() has re-created it. `cause` holds what the instance threw.
 */
export class EngineCrash extends Error {
  override name = 'EngineCrash';
}

/** What the instance threw, in words: an Emscripten abort, a trap, or a C++ exception (a number). */
export function crashReason(error: unknown): string {
  const text =
    error instanceof Error
      ? `${error.name}: ${error.message}`
      : typeof error === 'number'
        ? `an uncaught C++ exception (${error})`
        : String(error);
  return text.replace(/\. Build with -s ASSERTIONS=1 for more info\.?/, '');
}

/** An error's message, or the thing thrown, in words. */
export const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
