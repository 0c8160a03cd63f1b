/** Tunables of the live event stream. */
export interface LiveOptions {
  /** Period of the `: keep-alive` comment (and of the re-check of each stream's credentials). */
  keepAliveMs: number;
  /** Frames one subscriber may have waiting while its connection is not taking more. */
  maxQueuedFrames: number;
  /** Bytes one subscriber may have waiting (whichever bound is reached first counts). */
  maxQueuedBytes: number;
}

export const DEFAULT_LIVE_OPTIONS: Readonly<LiveOptions> = {
  keepAliveMs: 25_000,
  maxQueuedFrames: 256,
  maxQueuedBytes: 1024 * 1024,
};

/** Injection token of the {@link LiveOptions} (a fresh mutable copy of the defaults per app). */
export const LIVE_OPTIONS = Symbol('LIVE_OPTIONS');
