import { Clock } from '../../../src/core/clock/clock';

/** A clock the test moves by hand. */
export class MutableClock extends Clock {
  constructor(private current = Date.parse('2026-11-21T12:00:00Z')) {
    super();
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
