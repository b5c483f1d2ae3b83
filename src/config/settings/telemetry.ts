// Settings of OpenTelemetry tracing (docs/gateway.md "Telemetry"): off unless a receiver is named.
import { D, type SettingDef } from './def';

export const TELEMETRY: readonly SettingDef[] = [
  D(
    'telemetry.otlpEndpoint',
    'string',
    '',
    'An OTLP/HTTP receiver (e.g. `http://127.0.0.1:4318`; spans are posted to its `/v1/traces`): with it set, a span per client request and per upstream request is exported (docs/gateway.md "Telemetry"). Empty: off, and nothing of OpenTelemetry is loaded. Read at start.',
  ),
  D('telemetry.serviceName', 'string', 'mcpx', 'The `service.name` of the spans mcpx exports.'),
  D(
    'telemetry.maxQueue',
    'integer',
    2048,
    'Ended spans held for export at most; past it (a receiver that is down or slow) spans are dropped and counted, never waited for.',
    { min: 1 },
  ),
];
