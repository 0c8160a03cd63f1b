/** How much sample data there is (GET), now is (POST), or went (DELETE). */
export interface ExampleCounts {
  sensors: number;
  results: number;
  incidents: number;
  sites: number;
}
