import { DomainError } from '@monitor/domain';

/** The safety copy could not be made, so nothing was restored. The message names the file and the cause. */
export class SafetyCopyError extends DomainError {
  readonly status = 500;
}
