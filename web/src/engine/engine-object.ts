// The life of an object the engine keeps between calls (a Trainer, a ReaderModel, a KVCache): it is
// made in the wasm instance and freed there if its first call fails, it is called only while the
// instance that made it still runs (a restarted engine has a fresh heap), and dispose() frees it once.
// Each wrapper keeps only its own calls; this class holds that life once.
import type { AttentionEngine } from './engine';
import { EngineError } from './engine';
import type { RawEngineModule, RawLaterModule } from './types';

/** What the C++ side returns: the value, or the reason it refused. */
export type Result<T> = T | { error: string };

/** Every embind object can be freed. */
interface RawObject {
  delete(): void;
}

/** Which of the engine's two modules (engine.ts) holds the object's class. */
export type EngineModuleName = 'core' | 'later';

/** The instance of each module. */
interface Instances {
  core: RawEngineModule;
  later: RawLaterModule;
}

/** Runs `run` on the instance of `module`, with the engine's crash handling. */
function within<M extends EngineModuleName, T extends object>(
  engine: AttentionEngine,
  module: M,
  name: string,
  run: (instance: Instances[M]) => Result<T>,
): T {
  const enter = module === 'later' ? engine.withLaterInstance.bind(engine) : engine.withInstance.bind(engine);
  return enter(name, run as (instance: object) => Result<T>);
}

/**
 * How messages name the object: its class ("Trainer"), its name in words and how to get another; and
 * the module it lives in (the core unless said).
 */
export interface ObjectNaming {
  readonly className: string;
  readonly words: string;
  readonly remake: string;
  readonly module?: EngineModuleName;
}

export abstract class EngineObject<Raw extends RawObject> {
  private handle: Raw | null;

  protected constructor(
    private readonly engine: AttentionEngine,
    private readonly instance: RawEngineModule | RawLaterModule,
    handle: Raw,
    private readonly naming: ObjectNaming,
  ) {
    this.handle = handle;
  }

  /**
   * Makes the raw object with `create` and runs its first call `init`; a refusal frees it and throws
   * the C++ side's message, an answer is wrapped by `wrap`.
   */
  protected static made<Raw extends RawObject, Init extends object, Made, M extends EngineModuleName>(
    engine: AttentionEngine,
    module: M,
    name: string,
    create: (instance: Instances[M]) => Raw,
    init: (handle: Raw) => Result<Init>,
    wrap: (instance: Instances[M], handle: Raw, answer: Init) => Made,
  ): Made {
    let made: Made | null = null;
    within(engine, module, name, (instance: Instances[M]) => {
      const handle = create(instance);
      const result = init(handle);
      if ('error' in result) handle.delete();
      else made = wrap(instance, handle, result);
      return result;
    });
    // withInstance threw unless init answered, and then `made` was set.
    return made!;
  }

  /** One call of the object, refused once it is disposed or its engine has restarted. */
  protected call<T extends object>(name: string, run: (handle: Raw) => Result<T>): T {
    const { className, words, remake, module = 'core' } = this.naming;
    if (!this.handle) throw new EngineError(`this ${words} was disposed`);
    const handle = this.handle;
    return within(this.engine, module, `${className}.${name}`, (instance) => {
      if (instance !== this.instance) throw new EngineError(`the engine restarted since this ${words} was made: ${remake}`);
      return run(handle);
    });
  }

  /** Frees the object's memory in the wasm instance; later calls throw. */
  dispose(): void {
    if (this.handle && !this.engine.crashed) this.handle.delete();
    this.handle = null;
  }
}
