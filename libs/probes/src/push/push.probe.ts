import type { Probe, ProbeOutcome } from '../probe';
import { checkInteger, checkKnownOptions, checkTimeout, firstProblem } from '../probe-messages';
import { isPushToken } from './push-token';

const OPTION_NAMES = ['grace', 'token'];

/**
 * A push sensor is not probed: the monitored job calls /api/push/{token}, and the scheduler records
 * a failure when no push arrives within interval + grace. This probe only checks drafts; `run` is
 * what Run now and a validate-with-probe answer, since there is nothing to reach.
 */
export class PushProbe implements Probe {
  readonly type = 'push';
  readonly secretOptions: readonly string[] = ['token'];
  readonly optionNames = OPTION_NAMES;
  readonly targetless = true;

  peerHosts(): string[] {
    return [];
  }

  restrictedDraftProblem(): string | null {
    return null;
  }

  validate(target: string, options: Readonly<Record<string, unknown>>): string | null {
    return firstProblem(
      () => (target === '' ? null : 'target must be empty for push sensors'),
      () => checkKnownOptions(this.type, options, OPTION_NAMES),
      () => checkTimeout(options),
      () => checkInteger(options, 'grace', 0, 86_400),
      () =>
        options.token === undefined || isPushToken(options.token)
          ? null
          : 'options.token must be 22 to 128 characters of A-Z, a-z, 0-9, - and _',
    );
  }

  run(): Promise<ProbeOutcome> {
    return Promise.resolve({
      success: false,
      message: 'push sensors are not probed: they wait for pushes',
      latencyMs: null,
    });
  }
}
