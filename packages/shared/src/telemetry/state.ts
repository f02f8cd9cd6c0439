/** The running tracer provider, if any; kept apart from the SDK so stopping it loads nothing. */
let running: { shutdown(): Promise<void> } | undefined;

export function setRunning(sdk: { shutdown(): Promise<void> }): void {
  running = sdk;
}

export function isTelemetryRunning(): boolean {
  return running !== undefined;
}

/** Flushes and stops tracing (a shutdown step); resolves at once when tracing is off. */
export async function stopTelemetry(): Promise<void> {
  const sdk = running;
  running = undefined;
  await sdk?.shutdown().catch(() => undefined);
}

/** True when the environment asks for traces (an OTLP endpoint, and the SDK not disabled). */
export function telemetryConfigured(env: NodeJS.ProcessEnv): boolean {
  return (
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
    env.OTEL_SDK_DISABLED !== 'true'
  );
}
