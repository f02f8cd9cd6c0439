#!/usr/bin/env node
// Validates a stream of rendered Kubernetes manifests (helm template output) against the
// Kubernetes API schemas of kubernetes-models (4.5.x: the last line that runs on Node 20), and the
// custom resources' schemas of @kubernetes-models/keda and @kubernetes-models/prometheus-operator
// (the releases built on the same 4.x base).
//   node scripts/deploy/validateManifests.mjs <file.yaml> [label]   (or - for stdin)
// Fails on YAML errors, on an object without apiVersion/kind, on a kind the schemas do not
// know (a typo in `kind` or a CRD must not pass silently), and on any schema violation. On
// top of the schemas, which allow unknown fields, it checks what the chart promises: every
// container runs non-root with a read-only root filesystem and no capabilities, and every
// component's ConfigMap opens its listeners explicitly (the processes default to 127.0.0.1, the
// local stack's loopback, so a pod that left a host unset would be unreachable).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseAllDocuments } from 'yaml';

const require = createRequire(import.meta.url);
const [file = '-', label = file] = process.argv.slice(2);
const text = readFileSync(file === '-' ? 0 : file, 'utf8');

/**
 * The packages holding the schemas of the custom resources the chart renders (validated like the
 * built-in kinds, from the CRDs' own OpenAPI schemas): KEDA's ScaledObject and
 * TriggerAuthentication, the Prometheus Operator's ServiceMonitor and PrometheusRule.
 */
const CRD_PACKAGES = {
  'cert-manager.io': '@kubernetes-models/cert-manager',
  'keda.sh': '@kubernetes-models/keda',
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
};

/**
 * apiVersion "apps/v1" -> kubernetes-models/apps/v1; "v1" -> kubernetes-models/v1;
 * "keda.sh/v1alpha1" -> @kubernetes-models/keda/keda.sh/v1alpha1.
 */
function modelFor(apiVersion, kind) {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const pkg = CRD_PACKAGES[group] ?? 'kubernetes-models';
  let mod;
  try {
    mod = require(`${pkg}/${apiVersion}`);
  } catch {
    return undefined;
  }
  const Model = mod[kind];
  return typeof Model === 'function' && Model.kind === kind ? Model : undefined;
}

/** The pod spec of a workload, if it has one. */
function podSpecOf(obj) {
  if (obj.kind === 'Deployment' || obj.kind === 'Job') return obj.spec?.template?.spec;
  return undefined;
}

/** The chart's own promises about every container (the schemas cannot say them). */
function policyErrors(obj) {
  const pod = podSpecOf(obj);
  if (!pod) return [];
  const errors = [];
  if (pod.securityContext?.runAsNonRoot !== true)
    errors.push('pod securityContext.runAsNonRoot is not true');
  if (pod.securityContext?.seccompProfile?.type !== 'RuntimeDefault')
    errors.push('pod seccompProfile is not RuntimeDefault');
  if (pod.automountServiceAccountToken !== false)
    errors.push('automountServiceAccountToken is not false');
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    const sc = c.securityContext ?? {};
    if (sc.allowPrivilegeEscalation !== false)
      errors.push(`${c.name}: allowPrivilegeEscalation is not false`);
    if (sc.readOnlyRootFilesystem !== true)
      errors.push(`${c.name}: readOnlyRootFilesystem is not true`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL'))
      errors.push(`${c.name}: capabilities do not drop ALL`);
    if (!c.resources?.requests) errors.push(`${c.name}: no resource requests`);
    if (c.command)
      errors.push(
        `${c.name}: sets command, which would replace the image's tini entrypoint (use args)`,
      );
  }
  return errors;
}

/** The listen-address variables each component's process reads (each defaults to 127.0.0.1). */
const LISTEN_HOSTS = {
  gateway: ['HTTP_HOST', 'METRICS_HOST'],
  console: ['HTTP_HOST', 'METRICS_HOST'],
  records: ['GRPC_HOST', 'METRICS_HOST'],
  plans: ['GRPC_HOST', 'METRICS_HOST'],
  webhooks: ['GRPC_HOST', 'METRICS_HOST'],
  'webhooks-worker': ['GRPC_HOST', 'METRICS_HOST'],
};
const LOOPBACK = /^(127\.|localhost$|::1$|\[::1\]$)/;

/** A component's ConfigMap must set each of its listen hosts, and not to loopback. */
function listenHostErrors(obj) {
  if (obj.kind !== 'ConfigMap') return [];
  const hosts = LISTEN_HOSTS[obj.metadata?.labels?.['app.kubernetes.io/component']];
  if (!hosts) return [];
  return hosts.flatMap((name) => {
    const value = obj.data?.[name];
    if (value === undefined || value === '')
      return [`${name} is not set (the process would listen on 127.0.0.1)`];
    return LOOPBACK.test(value) ? [`${name} is ${value}: unreachable from other pods`] : [];
  });
}

/**
 * The caller credentials (and the console's) that open other services: a component that
 * answers no RPC but health must not hold them (the delivery worker, which talks to every
 * brand's receivers).
 */
const CALLER_CREDENTIALS = /^(INTERNAL_TOKEN|ADMIN_TOKEN|CONSOLE_TOKEN|CONSOLE_ASSERTION_)/;
const HOLDS_NO_CALLER_CREDENTIAL = new Set(['webhooks-worker']);

function credentialErrors(obj) {
  if (obj.kind !== 'Deployment') return [];
  if (!HOLDS_NO_CALLER_CREDENTIAL.has(obj.metadata?.labels?.['app.kubernetes.io/component']))
    return [];
  return obj.spec.template.spec.containers.flatMap((c) =>
    (c.env ?? [])
      .filter((e) => CALLER_CREDENTIALS.test(e.name))
      .map((e) => `${c.name}: holds ${e.name}, which it never presents nor checks`),
  );
}

let failures = 0;
const counts = new Map();
const docs = parseAllDocuments(text);
for (const doc of docs) {
  if (doc.errors.length) {
    failures++;
    console.error(`${label}: YAML error: ${doc.errors[0].message}`);
    continue;
  }
  const obj = doc.toJS();
  if (obj === null || obj === undefined) continue; // an empty document between separators
  const where = `${label}: ${obj.kind ?? '?'} ${obj.metadata?.name ?? '?'}`;
  if (!obj.apiVersion || !obj.kind) {
    failures++;
    console.error(`${where}: missing apiVersion or kind`);
    continue;
  }
  const Model = modelFor(obj.apiVersion, obj.kind);
  if (!Model) {
    failures++;
    console.error(`${where}: unknown kind ${obj.apiVersion}/${obj.kind}`);
    continue;
  }
  try {
    new Model(obj).validate();
  } catch (err) {
    failures++;
    console.error(`${where}: ${err instanceof Error ? err.message : String(err)}`);
    continue;
  }
  for (const e of [...policyErrors(obj), ...listenHostErrors(obj), ...credentialErrors(obj)]) {
    failures++;
    console.error(`${where}: ${e}`);
  }
  counts.set(obj.kind, (counts.get(obj.kind) ?? 0) + 1);
}

const summary = [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
if (failures > 0) {
  console.error(`${label}: ${failures} problem(s)`);
  process.exit(1);
}
if (counts.size === 0) {
  console.error(`${label}: no objects rendered`);
  process.exit(1);
}
console.log(`${label}: valid (${summary})`);
