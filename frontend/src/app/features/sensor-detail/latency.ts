// Moved to shared/format (issue 27); this re-export keeps sensor-detail's imports until they point there.
export { formatLatency } from '../../shared/format/latency';
