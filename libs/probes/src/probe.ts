/** What one probe run found. `message` is what users read; it never contains a secret. */
export interface ProbeOutcome {
  success: boolean;
  message: string;
  /** Round-trip time of the check in milliseconds; null when nothing answered. */
  latencyMs: number | null;
  /** HTTP status code (http probes only). */
  statusCode?: number | null;
  /** When the TLS certificate the probe saw expires (ms since the epoch); absent when it saw none. */
  certExpiresAt?: number;
}

export interface ProbeRequest {
  target: string;
  options: Readonly<Record<string, unknown>>;
  /** Hard deadline of this run: the probe settles (as a failure) no later than this. */
  timeoutMs: number;
  /** Aborted when the run must stop early (time-out, shutdown). */
  signal: AbortSignal;
  /**
   * The caller is below administrator (a draft probe): every address the run connects to, after
   * each lookup and redirect, goes through the address guard, which refuses link-local and cloud
   * metadata addresses.
   */
  guarded?: boolean;
}

/**
 * One sensor type. Implementations live one per file, are registered in the catalogue, and need
 * no Nest and no database: tests run them against real peers on 127.0.0.1.
 */
export interface Probe {
  readonly type: string;
  /**
   * Option names whose values are secrets: masked by the API, never in messages or logs. A secret
   * option holding an object (http headers) is masked value by value.
   */
  readonly secretOptions: readonly string[];
  /** True when the type takes no target (push sensors): the target must then be empty. */
  readonly targetless?: boolean;
  /** Option names of this type besides the common `timeout`. */
  readonly optionNames: readonly string[];
  /**
   * Strict check of a draft (create, update, validate endpoint): null when valid, otherwise one
   * sentence naming the field, e.g. `options.expected_status must look like "200-299,301"`.
   */
  validate(target: string, options: Readonly<Record<string, unknown>>): string | null;
  /** The hosts (names or literals) a run of this draft sends packets to; [] for none. */
  peerHosts(target: string, options: Readonly<Record<string, unknown>>): string[];
  /**
   * Why a caller below administrator may not run this draft: options that shape the request
   * beyond a plain check, reach local files, or judge what the peer sent (an oracle). Null when
   * it may.
   */
  restrictedDraftProblem(options: Readonly<Record<string, unknown>>): string | null;
  /** Runs once. Never throws: every failure is an outcome with success false. */
  run(request: ProbeRequest): Promise<ProbeOutcome>;
  /** Releases pooled connections (at shutdown). */
  close?(): Promise<void>;
}
