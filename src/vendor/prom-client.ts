/**
 * prom-client, for the service's /metrics. In the package this file is a bundle of these exports
 * (scripts/bundle-vendored.ts): prom-client installs 4.7 MB, 2.3 MB of them bintrees's tests and 2 MB the
 * OpenTelemetry API for exemplars barometer does not record. See docs/decisions/019-install-size.md.
 */
export { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
