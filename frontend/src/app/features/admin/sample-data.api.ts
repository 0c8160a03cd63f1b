import type { ExampleCounts } from '@monitor/contracts';

import type { ApiClient } from '../../core/api/api-client.service';

/** Loads the sample data (`POST /api/examples`, administrators) and answers the counts after it. */
export function loadSampleData(api: ApiClient): Promise<ExampleCounts> {
  return api.post<ExampleCounts>('/api/examples');
}
