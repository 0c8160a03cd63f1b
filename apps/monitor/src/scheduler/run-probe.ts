import { type ProbeCatalogue, type ProbeOutcome, timeoutMs } from '@monitor/probes';
import type { SensorDefinition } from '../sensors/sensor-definition';

/** Runs one probe; it never outlives its time-out, whatever the probe does. */
export async function runProbe(
  catalogue: ProbeCatalogue,
  definition: SensorDefinition,
  controller: AbortController,
  /** A draft probe of a caller below administrator: addresses go through the address guard. */
  guarded = false,
): Promise<ProbeOutcome> {
  const probe = catalogue.get(definition.type);
  if (!probe) return { success: false, message: `no probe for type ${definition.type}`, latencyMs: null };
  const limit = timeoutMs(definition.options, definition.interval);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ProbeOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ success: false, message: `timed out after ${limit / 1000} s`, latencyMs: null });
    }, limit + 250);
  });
  try {
    return await Promise.race([
      probe.run({
        target: definition.target,
        options: definition.options,
        timeoutMs: limit,
        signal: controller.signal,
        guarded,
      }),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
