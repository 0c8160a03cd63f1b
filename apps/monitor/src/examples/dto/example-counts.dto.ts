import type { ExampleCounts } from '@monitor/contracts';

export class ExampleCountsDto implements ExampleCounts {
  sensors!: number;
  results!: number;
  incidents!: number;
  sites!: number;
}
