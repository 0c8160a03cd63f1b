/** How this process runs the application, decided by whoever starts it (serve, seed, the tests). */
export const RUN_OPTIONS = Symbol('RUN_OPTIONS');

export interface RunOptions {
  /** False in tests that drive the runtime by hand and in `seed`: state is rebuilt, no probe runs. */
  startScheduler: boolean;
}
