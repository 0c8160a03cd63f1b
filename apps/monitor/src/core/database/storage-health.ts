import { Injectable } from '@nestjs/common';

export interface StorageProblem {
  /** Epoch milliseconds of the first failed write of this spell. */
  since: number;
  /** Why writes fail, for operators (never row contents). */
  reason: string;
}

/**
 * Whether writes to the database currently succeed. Writers report each failure and success;
 * /healthz and the doctor read the state, so a monitor that cannot store anything is not silent.
 */
@Injectable()
export class StorageHealth {
  private current: StorageProblem | null = null;

  /** Records a failed write; true when this starts a spell of failures (log once, not per write). */
  failed(reason: string, at = Date.now()): boolean {
    const started = this.current === null;
    this.current = { since: this.current?.since ?? at, reason };
    return started;
  }

  /** Records a successful write; true when this ends a spell of failures. */
  recovered(): boolean {
    const ended = this.current !== null;
    this.current = null;
    return ended;
  }

  problem(): StorageProblem | null {
    return this.current;
  }
}
