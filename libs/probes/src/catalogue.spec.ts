import { SENSOR_INTERVAL, SENSOR_TYPES } from '@monitor/domain';
import { createProbeCatalogue } from './catalogue';
import { checkTimeout } from './probe-messages';

describe('the probe catalogue and the sensor definition', () => {
  it('registers exactly the definition type ids, in its order', async () => {
    const catalogue = createProbeCatalogue();
    expect(catalogue.types()).toEqual([...SENSOR_TYPES]);
    await catalogue.close();
  });

  // The probes stay free of @monitor imports (child processes load them without path aliases),
  // so the time-out bound is a literal that must equal the longest interval.
  it('bounds the time-out by the longest interval', () => {
    expect(checkTimeout({ timeout: SENSOR_INTERVAL.max })).toBeNull();
    expect(checkTimeout({ timeout: SENSOR_INTERVAL.max + 1 })).toMatch(/timeout/);
  });
});
