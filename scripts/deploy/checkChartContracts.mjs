#!/usr/bin/env node
// What the chart promises beyond the schemas, checked on the rendered production example
// (npm run deploy:check):
//  1. Every Secret and ConfigMap a rendered object reads exists (issue 60): each reference (env
//     secretKeyRef and configMapKeyRef, envFrom, secret, configMap and projected volumes, an
//     Ingress's TLS secretName, KEDA's secretTargetRef, imagePullSecrets) is rendered by the
//     chart, issued by a rendered cert-manager Certificate (its secretName), or created, key by
//     key, by the README's install step (`kubectl create secret generic|tls`, `kubectl create
//     configmap`). Anything else fails (pods would sit in CreateContainerConfigError, an Ingress
//     would serve the controller's default certificate), unless the reference is optional.
//  2. Every alert's runbook_url names a heading of docs/operating.md.
//  3. The receivers' default egress ports are the service's own URL policy
//     (packages/shared/src/egress/portPolicy.ts): 443 and the unprivileged ports.
//  4. The console's HTTP port is open only to named peers (the ingress controller's namespace).
//  5. No probe on a public port (issue 47): every HTTP probe of a container targets its metrics
//     (internal) port, whose NetworkPolicy rule admits `probeFrom` besides `metricsFrom`.
//  6. Liveness never follows a dependency (issue 60): no liveness or startup probe is a gRPC
//     health check (NOT_SERVING without the database) or /readyz.
//  7. Every gRPC address a workload is given is reachable under the NetworkPolicies: for each
//     `*_GRPC_ADDR` (or `dns:` target) in a pod's environment (its env and the ConfigMaps of its
//     envFrom), the Service it names selects pods whose policies admit the caller's pods on the
//     Service's target port (ingress), and the caller's policies let it out to them (egress).
//     However the chart decides who calls whom, an address handed out but shut off fails here
//     (the webhooks policy once admitted only the console and operators, shutting out the
//     gateway's events feed and records' and plans' audit relays).
//  8. Every rotation setting (`*_PREVIOUS`) a process reads reaches it, and none it does not
//     (a process holding the current value as a variable or as a file, secrets.asFiles); no
//     setting is given both as a variable and as `<NAME>_FILE`, which the process refuses:
//     the names come from the process's own config schema (<dir>/src/config.ts of the
//     container's `<dir>/dist/main.js`, with the shared `...xxxEnv` fragments it spreads), and
//     each must be an optional secretKeyRef of its Deployment (absent from the Secret: not set).
//     A setting left unmapped makes the rotation in docs/operating.md impossible from the chart.
//  9. The webhooks workers wait long enough on SIGTERM: SHUTDOWN_GRACE_MS / 2 (what the worker
//     role waits for attempts in flight) exceeds DELIVERY_TIMEOUT_MS, and
//     terminationGracePeriodSeconds exceeds SHUTDOWN_GRACE_MS.
// 10. With PROBE_FROM_ADDRESS (a node address in networkPolicy.probeFrom): every port a probe
//     uses (metrics, gRPC) admits it.
// 11. A NetworkPolicy selecting only a hook's pods (the migration Job's) is a hook of the same
//     events with a lower weight: the Job never runs under the previous release's policy.
// 12. No autoscaler of the production example scales on memory (the RSS does not fall with
//     more replicas: it would scale up and never down).
//   [PROBE_FROM_ADDRESS=10.0.3.7] node scripts/deploy/checkChartContracts.mjs <rendered production.yaml> [README.md]
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const CHART = path.join(root, 'deploy/helm/brand-records');
const [renderedFile, readmeFile = path.join(CHART, 'README.md')] = process.argv.slice(2);
if (!renderedFile) {
  console.error('usage: checkChartContracts.mjs <rendered production.yaml> [README.md]');
  process.exit(2);
}

const problems = [];
const objects = parseAllDocuments(readFileSync(renderedFile, 'utf8'))
  .map((d) => d.toJS())
  .filter(Boolean);

// 1. Every Secret and ConfigMap read exists ---------------------------------------------------

/**
 * The Secrets and ConfigMaps the README's shell blocks create: { 'Secret/name': Set(keys) },
 * from each `kubectl ... create secret generic|tls NAME` (its --from-literal/--from-file keys;
 * tls: tls.crt and tls.key) and `kubectl ... create configmap NAME --from-file=KEY=...`
 * command (continuation lines joined).
 */
function createdBy(markdown) {
  const created = new Map();
  const blocks = [...markdown.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => m[1]);
  for (const block of blocks) {
    for (const command of block.replace(/\\\n/g, ' ').split('\n')) {
      const m = /\bcreate\s+(secret\s+generic|secret\s+tls|configmap)\s+([a-z0-9.-]+)/.exec(
        command,
      );
      if (!m) continue;
      const id = `${m[1] === 'configmap' ? 'ConfigMap' : 'Secret'}/${m[2]}`;
      const keys = created.get(id) ?? new Set();
      if (m[1].endsWith('tls')) ['tls.crt', 'tls.key'].forEach((k) => keys.add(k));
      for (const k of command.matchAll(/--from-(?:literal|file)=([A-Za-z0-9._-]+)=/g))
        keys.add(k[1]);
      created.set(id, keys);
    }
  }
  return created;
}

/** Every reference to a Secret or ConfigMap (and key) in the rendered objects. */
function references(objs) {
  const refs = [];
  const add = (kind, name, key, optional, where) =>
    refs.push({ id: `${kind}/${name}`, key, optional: optional === true, where });
  for (const obj of objs) {
    const where = `${obj.kind} ${obj.metadata?.name}`;
    const pod = obj.spec?.template?.spec ?? obj.spec?.jobTemplate?.spec?.template?.spec;
    if (pod) {
      for (const s of pod.imagePullSecrets ?? []) add('Secret', s.name, undefined, false, where);
      for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
        for (const e of c.env ?? []) {
          const sk = e.valueFrom?.secretKeyRef;
          if (sk) add('Secret', sk.name, sk.key, sk.optional, where);
          const ck = e.valueFrom?.configMapKeyRef;
          if (ck) add('ConfigMap', ck.name, ck.key, ck.optional, where);
        }
        for (const e of c.envFrom ?? []) {
          if (e.secretRef) add('Secret', e.secretRef.name, undefined, e.secretRef.optional, where);
          if (e.configMapRef)
            add('ConfigMap', e.configMapRef.name, undefined, e.configMapRef.optional, where);
        }
      }
      for (const v of pod.volumes ?? []) {
        const sources = [
          ...(v.secret ? [{ kind: 'Secret', name: v.secret.secretName, ...v.secret }] : []),
          ...(v.configMap ? [{ kind: 'ConfigMap', ...v.configMap }] : []),
          ...(v.projected?.sources ?? []).flatMap((src) => [
            ...(src.secret ? [{ kind: 'Secret', ...src.secret }] : []),
            ...(src.configMap ? [{ kind: 'ConfigMap', ...src.configMap }] : []),
          ]),
        ];
        for (const src of sources) {
          if (!src.items) add(src.kind, src.name, undefined, src.optional, where);
          for (const item of src.items ?? [])
            add(src.kind, src.name, item.key, src.optional, where);
        }
      }
    }
    if (obj.kind === 'Ingress')
      for (const t of obj.spec?.tls ?? []) add('Secret', t.secretName, undefined, false, where);
    if (obj.kind === 'TriggerAuthentication')
      for (const r of obj.spec?.secretTargetRef ?? []) add('Secret', r.name, r.key, false, where);
  }
  return refs;
}

const readme = readFileSync(readmeFile, 'utf8');
const created = createdBy(readme);
const rendered = new Set(
  objects
    .filter((o) => ['Secret', 'ConfigMap'].includes(o.kind))
    .map((o) => `${o.kind}/${o.metadata.name}`),
);
// cert-manager writes each Certificate's Secret (tls.crt, tls.key) and renews it
const issued = new Set(
  objects.filter((o) => o.kind === 'Certificate').map((o) => `Secret/${o.spec.secretName}`),
);
const read = { Secret: new Set(), ConfigMap: new Set() };
let checkedRefs = 0;
for (const ref of references(objects)) {
  if (ref.optional) continue;
  checkedRefs++;
  const [kind] = ref.id.split('/');
  read[kind].add(ref.id);
  if (rendered.has(ref.id) || issued.has(ref.id)) continue;
  const keys = created.get(ref.id);
  if (!keys) {
    problems.push(
      `${ref.where} reads ${ref.id.replace('/', ' ')}${ref.key ? ` key ${ref.key}` : ''}, which neither the chart renders, a Certificate issues, nor the README's install step creates`,
    );
  } else if (ref.key && !keys.has(ref.key)) {
    problems.push(
      `${ref.where} reads key ${ref.key} of ${ref.id.replace('/', ' ')}, which the README's \`kubectl create\` of it does not create`,
    );
  }
}
if (checkedRefs === 0)
  problems.push('no Secret or ConfigMap reference found in the rendered objects');

// 2. Runbooks ---------------------------------------------------------------------------------

/** GitHub's anchor of a heading, as scripts/docs/checkLinks.mjs computes it. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const operating = readFileSync(path.join(root, 'docs/operating.md'), 'utf8');
const anchors = new Set([...operating.matchAll(/^#{1,6}\s+(.*)$/gm)].map((m) => slug(m[1])));
let alerts = 0;
for (const rule of objects.filter((o) => o.kind === 'PrometheusRule')) {
  for (const group of rule.spec.groups) {
    for (const r of group.rules.filter((x) => x.alert)) {
      alerts++;
      const url = r.annotations?.runbook_url ?? '';
      const anchor = url.split('#')[1];
      if (!url.split('#')[0].endsWith('docs/operating.md') || !anchor || !anchors.has(anchor))
        problems.push(
          `alert ${r.alert}: runbook_url ${url || '(none)'} is not a heading of docs/operating.md`,
        );
    }
  }
}

// 3. Receivers' ports follow the service's URL policy ----------------------------------------

const policy = readFileSync(path.join(root, 'packages/shared/src/egress/portPolicy.ts'), 'utf8');
const constant = (name) => Number(new RegExp(`const ${name} = (\\d+);`).exec(policy)?.[1]);
const expected = [
  { port: constant('HTTPS_PORT') },
  { port: constant('FIRST_UNPRIVILEGED'), endPort: constant('LAST_PORT') },
];
const values = parse(readFileSync(path.join(CHART, 'values.yaml'), 'utf8'));
const actual = values.networkPolicy.egress.receivers.ports;
if (JSON.stringify(actual) !== JSON.stringify(expected))
  problems.push(
    `networkPolicy.egress.receivers.ports is ${JSON.stringify(actual)}, the service accepts ${JSON.stringify(expected)} (portPolicy.ts)`,
  );

// 4. The console only from named peers --------------------------------------------------------

const consolePolicy = objects.find(
  (o) =>
    o.kind === 'NetworkPolicy' && o.metadata.labels?.['app.kubernetes.io/component'] === 'console',
);
const httpRule = consolePolicy?.spec.ingress?.find((r) => r.ports?.some((p) => p.port === 'http'));
if (consolePolicy && !httpRule?.from?.length)
  problems.push("the console's NetworkPolicy admits any source on its HTTP port");

// 5. Probes on the internal listener only -------------------------------------------------

let httpProbes = 0;
for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
  for (const c of deployment.spec.template.spec.containers ?? []) {
    const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
    for (const kind of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      const get = c[kind]?.httpGet;
      if (!get) continue;
      httpProbes++;
      const port = typeof get.port === 'number' ? get.port : ports.get(get.port);
      if (port !== ports.get('metrics'))
        problems.push(
          `Deployment ${deployment.metadata.name}: ${kind} ${get.path} is on port ${get.port}, not the internal metrics port (the public port serves nothing without a key)`,
        );
    }
  }
}
if (httpProbes === 0) problems.push('no HTTP probe found in the rendered Deployments');

// 6. Liveness never follows a dependency ------------------------------------------------------

// The startup probe too: until it passes the liveness probe is not run, and when it fails the
// kubelet kills the container, so a pod starting during a failover longer than its budget
// (failureThreshold x periodSeconds, about 60 s) would crash-loop.
let livenessProbes = 0;
for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
  for (const c of deployment.spec.template.spec.containers ?? []) {
    for (const [kind, what] of [
      ['livenessProbe', 'liveness'],
      ['startupProbe', 'startup'],
    ]) {
      const probe = c[kind];
      if (!probe) continue;
      livenessProbes++;
      if (probe.grpc || probe.httpGet?.path === '/readyz')
        problems.push(
          `Deployment ${deployment.metadata.name}: its ${what} probe (${probe.grpc ? 'grpc.health.v1' : '/readyz'}) follows its dependencies, so a database failover would restart it`,
        );
    }
  }
}

// 7. Every gRPC address handed out is open under the NetworkPolicies --------------------------

/** Whether a label selector ({ matchLabels, matchExpressions }) selects these labels. */
function selects(selector, labels = {}) {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every(
    ({ key, operator, values = [] }) => {
      if (operator === 'In') return values.includes(labels[key]);
      if (operator === 'NotIn') return !values.includes(labels[key]);
      if (operator === 'Exists') return key in labels;
      if (operator === 'DoesNotExist') return !(key in labels);
      return false;
    },
  );
  return byLabels && byExpressions;
}

/** The workloads with a pod template: { where, namespace, labels, containers }. */
const workloads = objects
  .map((o) => {
    const template = o.spec?.template ?? o.spec?.jobTemplate?.spec?.template;
    if (!template?.spec) return undefined;
    return {
      where: `${o.kind} ${o.metadata.name}`,
      namespace: o.metadata.namespace,
      labels: template.metadata?.labels ?? {},
      containers: [...(template.spec.initContainers ?? []), ...(template.spec.containers ?? [])],
    };
  })
  .filter(Boolean);

/** A container's environment, its envFrom ConfigMaps (rendered ones) included: [[name, value]]. */
function environmentOf(w, c) {
  const env = [];
  for (const from of c.envFrom ?? []) {
    const cm = objects.find(
      (o) =>
        o.kind === 'ConfigMap' &&
        o.metadata.name === from.configMapRef?.name &&
        o.metadata.namespace === w.namespace,
    );
    for (const [k, v] of Object.entries(cm?.data ?? {})) env.push([(from.prefix ?? '') + k, v]);
  }
  for (const e of c.env ?? []) if (typeof e.value === 'string') env.push([e.name, e.value]);
  return env;
}

/** The NetworkPolicies of a pod for one direction: undefined when none selects it (all open). */
function policiesOf(w, direction) {
  const selecting = objects.filter(
    (o) =>
      o.kind === 'NetworkPolicy' &&
      o.metadata.namespace === w.namespace &&
      selects(o.spec.podSelector, w.labels) &&
      (o.spec.policyTypes ?? ['Ingress']).includes(direction),
  );
  return selecting.length ? selecting : undefined;
}

/** Whether a rule's ports include a pod's port { name, number } (no ports: every port). */
const rulePortMatches = (rule, port) =>
  !rule.ports?.length ||
  rule.ports.some(
    (p) =>
      (p.protocol ?? 'TCP') === 'TCP' &&
      (p.port === undefined ||
        p.port === port.name ||
        p.port === port.number ||
        (typeof p.port === 'number' &&
          p.endPort &&
          p.port <= port.number &&
          port.number <= p.endPort)),
  );

/** Whether a rule's peers (from or to) include a pod of `peer` (no peers: everyone). */
const rulePeerMatches = (peers, policyNamespace, peer) =>
  !peers?.length ||
  peers.some((p) => {
    if (!p.podSelector && !p.namespaceSelector) return false; // an ipBlock: not pod addresses
    const namespaceOk = p.namespaceSelector
      ? selects(p.namespaceSelector, { 'kubernetes.io/metadata.name': peer.namespace })
      : peer.namespace === policyNamespace;
    return namespaceOk && (!p.podSelector || selects(p.podSelector, peer.labels));
  });

/** Whether `at`'s policies of `type` (none: all open) have a rule for `port` naming `peer`. */
function opens(at, type, port, peer) {
  const policies = policiesOf(at, type);
  const [rules, peers] = type === 'Ingress' ? ['ingress', 'from'] : ['egress', 'to'];
  return (
    !policies ||
    policies.some((np) =>
      (np.spec[rules] ?? []).some(
        (r) => rulePortMatches(r, port) && rulePeerMatches(r[peers], np.metadata.namespace, peer),
      ),
    )
  );
}

/** Whether `from`'s pods may open a connection to `to`'s port under the rendered policies. */
function admitted(from, to, port) {
  return { inOk: opens(to, 'Ingress', port, from), outOk: opens(from, 'Egress', port, to) };
}

let grpcAddresses = 0;
for (const w of workloads) {
  for (const c of w.containers) {
    for (const [name, value] of environmentOf(w, c)) {
      if (!name.endsWith('_GRPC_ADDR') && !value.startsWith('dns:')) continue;
      grpcAddresses++;
      // dns:///host:port, dns://authority/host:port or host:port
      const m = /^(?:dns:\/\/[^/]*\/)?\[?([^\]/]+?)\]?:(\d+)$/.exec(value);
      if (!m) {
        problems.push(`${w.where}: ${name}=${value} is not a host:port gRPC target`);
        continue;
      }
      const [serviceName, serviceNamespace = w.namespace] = m[1].split('.');
      const service = objects.find(
        (o) =>
          o.kind === 'Service' &&
          o.metadata.name === serviceName &&
          o.metadata.namespace === serviceNamespace,
      );
      const servicePort = service?.spec.ports?.find((p) => p.port === Number(m[2]));
      if (!servicePort) {
        problems.push(
          `${w.where}: ${name}=${value} names no port of a rendered Service (${serviceName}:${m[2]})`,
        );
        continue;
      }
      const targets = workloads.filter(
        (t) =>
          t.namespace === service.metadata.namespace &&
          selects({ matchLabels: service.spec.selector }, t.labels),
      );
      if (targets.length === 0)
        problems.push(
          `${w.where}: ${name} names Service ${serviceName}, which selects no rendered pods`,
        );
      for (const t of targets) {
        const target = servicePort.targetPort ?? servicePort.port;
        const cport = t.containers
          .flatMap((tc) => tc.ports ?? [])
          .find((p) => p.name === target || p.containerPort === target);
        if (!cport) {
          problems.push(`${t.where} has no container port ${target} (Service ${serviceName})`);
          continue;
        }
        const port = { name: cport.name, number: cport.containerPort };
        const { inOk, outOk } = admitted(w, t, port);
        const what = `${w.where} is given ${name} (${serviceName}:${m[2]}), but`;
        if (!inOk)
          problems.push(
            `${what} no NetworkPolicy of ${t.where} admits its pods on port ${port.name ?? port.number} (ingress): its calls would time out`,
          );
        if (!outOk)
          problems.push(
            `${what} no NetworkPolicy of its own lets it reach ${t.where} on port ${port.number} (egress): its calls would time out`,
          );
      }
    }
  }
}
if (grpcAddresses === 0) problems.push('no gRPC address (*_GRPC_ADDR) found in the rendered pods');

// 8. Every rotation setting a process reads reaches it ----------------------------------------

/** `export const NAME = { ... };` blocks of packages/shared/src, by name (the env fragments). */
const sharedFragments = new Map();
for (const entry of readdirSync(path.join(root, 'packages/shared/src'), {
  recursive: true,
  withFileTypes: true,
})) {
  if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
  const text = readFileSync(path.join(entry.parentPath ?? entry.path, entry.name), 'utf8');
  for (const m of text.matchAll(/^export const (\w+) = \{\n([\s\S]*?)^\};/gm))
    sharedFragments.set(m[1], m[2]);
}
const previousKeys = (text) =>
  [...text.matchAll(/^\s*([A-Z][A-Z0-9_]*_PREVIOUS)\s*:/gm)].map((m) => m[1]);

/** The *_PREVIOUS settings a process's config schema reads (its file and the fragments it spreads). */
function rotationSettingsOf(configFile) {
  const text = readFileSync(configFile, 'utf8');
  const names = new Set(previousKeys(text));
  for (const m of text.matchAll(/\.\.\.(\w+Env)\b(?!\s*\()/g))
    for (const n of previousKeys(sharedFragments.get(m[1]) ?? '')) names.add(n);
  return names;
}

let rotationSettings = 0;
for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
  for (const c of deployment.spec.template.spec.containers ?? []) {
    const main = (c.args ?? []).find((a) => /^[\w/.-]+\/dist\/main\.js$/.test(a));
    if (!main) continue;
    const configFile = path.join(root, main.replace(/\/dist\/main\.js$/, '/src/config.ts'));
    if (!existsSync(configFile)) {
      problems.push(
        `Deployment ${deployment.metadata.name} runs ${main}, but ${path.relative(root, configFile)} does not exist`,
      );
      continue;
    }
    const reads = rotationSettingsOf(configFile);
    const given = new Map(
      (c.env ?? [])
        .filter((e) => e.name.endsWith('_PREVIOUS'))
        .map((e) => [e.name, e.valueFrom?.secretKeyRef]),
    );
    // a setting held as a variable, or as a file (`<NAME>_FILE`, secrets.asFiles)
    const environment = environmentOf({ namespace: deployment.metadata.namespace }, c);
    const holds = new Set([
      ...(c.env ?? []).map((e) => e.name),
      ...environment.filter(([n]) => n.endsWith('_FILE')).map(([n]) => n.replace(/_FILE$/, '')),
    ]);
    // a process refuses a setting given both ways (startSecretFiles.ts): which would win?
    for (const e of c.env ?? [])
      if (environment.some(([n]) => n === `${e.name}_FILE`)) {
        problems.push(
          `Deployment ${deployment.metadata.name}: ${e.name} is given both as a variable and as ${e.name}_FILE, which the process refuses at start`,
        );
      }
    for (const name of reads) {
      // A component given no current value (the webhooks worker, no caller credential) has
      // nothing to rotate: INTERNAL_TOKENS_PREVIOUS goes with INTERNAL_TOKEN.
      if (!holds.has(name.replace(/S_PREVIOUS$/, ''))) continue;
      rotationSettings++;
      const ref = given.get(name);
      if (!ref)
        problems.push(
          `Deployment ${deployment.metadata.name}: ${main} reads ${name} (${path.relative(root, configFile)}), which the chart does not map from the Secret: the rotation in docs/operating.md cannot be done`,
        );
      else if (ref.optional !== true)
        problems.push(
          `Deployment ${deployment.metadata.name}: ${name} is not an optional secretKeyRef (a Secret without it, outside a rotation, would stop the pods)`,
        );
    }
    for (const name of given.keys())
      if (!reads.has(name))
        problems.push(
          `Deployment ${deployment.metadata.name}: receives ${name}, which ${path.relative(root, configFile)} does not read`,
        );
  }
}
if (rotationSettings === 0)
  problems.push("no *_PREVIOUS setting found in the processes' config schemas");

// 9. The webhooks workers finish in-flight deliveries before they are stopped ------------------

// On SIGTERM the worker role waits SHUTDOWN_GRACE_MS / 2 for attempts in flight
// (services/webhooks/src/claim/workerRole.ts: the steps after it need the rest), then abandons
// them: their leases (DELIVERY_LEASE_MS) expire and another worker sends them again, later and
// twice. An attempt lasts up to DELIVERY_TIMEOUT_MS, so every rollout or scale-down would cut
// the slow ones unless half the grace exceeds it; and Kubernetes kills the pod at
// terminationGracePeriodSeconds, which must exceed the grace itself (packages/shared/src/shutdown).
const webhooksConfig = readFileSync(path.join(root, 'services/webhooks/src/config.ts'), 'utf8');
const timeoutDefault = /DELIVERY_TIMEOUT_MS:\s*msEnv\.default\(([\d_]+)\)/.exec(webhooksConfig);
if (
  !/worker\.stop\(Math\.floor\(config\.SHUTDOWN_GRACE_MS \/ 2\)\)/.test(
    readFileSync(path.join(root, 'services/webhooks/src/claim/workerRole.ts'), 'utf8'),
  )
)
  problems.push(
    'services/webhooks/src/claim/workerRole.ts no longer waits SHUTDOWN_GRACE_MS / 2 for in-flight deliveries: update check 9',
  );
if (!timeoutDefault)
  problems.push('no DELIVERY_TIMEOUT_MS default found in services/webhooks/src/config.ts');
let workerGraces = 0;
for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
  const pod = deployment.spec.template.spec;
  const c = pod.containers?.[0];
  const env = Object.fromEntries(environmentOf({ namespace: deployment.metadata.namespace }, c));
  if (!(env.WEBHOOKS_ROLES ?? '').split(',').includes('worker')) continue;
  workerGraces++;
  const grace = Number(env.SHUTDOWN_GRACE_MS ?? 10_000);
  const timeout = Number(env.DELIVERY_TIMEOUT_MS ?? timeoutDefault?.[1].replace(/_/g, ''));
  const kill = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
  const where = `Deployment ${deployment.metadata.name}`;
  if (!(grace / 2 > timeout))
    problems.push(
      `${where}: SHUTDOWN_GRACE_MS / 2 (${grace / 2} ms, what the worker waits for attempts in flight) is not above DELIVERY_TIMEOUT_MS (${timeout} ms): a rollout or scale-down cuts slow attempts, sent again after their lease`,
    );
  if (!(kill > grace))
    problems.push(
      `${where}: terminationGracePeriodSeconds (${kill / 1000} s) is not above SHUTDOWN_GRACE_MS (${grace} ms): Kubernetes kills the pod mid-shutdown`,
    );
}
if (workerGraces === 0)
  problems.push('no webhooks worker Deployment (WEBHOOKS_ROLES worker) found');

// 10. Every probed port admits the kubelet (networkPolicy.probeFrom) ------------------------

// Where the CNI filters the kubelet's probes, probeFrom names the nodes; every port a probe uses
// (the metrics port's HTTP probes, the gRPC port's health and TCP probes) must admit them, or the
// pods never become ready (or are killed). PROBE_FROM_ADDRESS: a node address inside the rendered
// probeFrom (deploy-check.sh renders the production example with one); unset, the check is off.
const probeFrom = process.env.PROBE_FROM_ADDRESS;
const ipv4 = (a) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const inCidr = (ip, cidr) => {
  const [base, bits = '32'] = cidr.split('/');
  if (base.includes(':') !== ip.includes(':') || ip.includes(':')) return false;
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipv4(ip) / size) === Math.floor(ipv4(base) / size);
};
/** Whether a rule's peers admit a source address (no peers: everyone; ipBlocks only). */
const admitsAddress = (peers, ip) =>
  !peers?.length ||
  peers.some(
    (p) =>
      p.ipBlock &&
      inCidr(ip, p.ipBlock.cidr) &&
      !(p.ipBlock.except ?? []).some((e) => inCidr(ip, e)),
  );
let probedPorts = 0;
if (probeFrom) {
  for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
    const labels = deployment.spec.template.metadata?.labels ?? {};
    const policies = policiesOf({ namespace: deployment.metadata.namespace, labels }, 'Ingress');
    for (const c of deployment.spec.template.spec.containers ?? []) {
      const named = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
      for (const kind of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        const probe = c[kind];
        const ref = probe?.grpc?.port ?? probe?.httpGet?.port ?? probe?.tcpSocket?.port;
        if (ref === undefined) continue;
        probedPorts++;
        const number = typeof ref === 'number' ? ref : named.get(ref);
        const name = [...named].find(([, n]) => n === number)?.[0];
        const port = { name, number };
        const open =
          !policies ||
          policies.some((np) =>
            (np.spec.ingress ?? []).some(
              (r) => rulePortMatches(r, port) && admitsAddress(r.from, probeFrom),
            ),
          );
        if (!open)
          problems.push(
            `Deployment ${deployment.metadata.name}: its ${kind} uses port ${name ?? number}, which no NetworkPolicy opens to networkPolicy.probeFrom (${probeFrom}): where the CNI filters the kubelet, the pods never pass it`,
          );
      }
    }
  }
  if (probedPorts === 0) problems.push('no probe found in the rendered Deployments');
}

// 11. A hook's own NetworkPolicies apply before it runs -------------------------------------

// The migration Job is a pre-install/pre-upgrade hook: Helm runs it before it applies the
// release's objects. A NetworkPolicy only for its pods that was a release object would still be
// the previous release's while the Job runs (an upgrade that changes egress.postgres would
// migrate under the old policy, or time out); so each must be a hook of the same events, with a
// lower weight than the Job (created first).
const hookOf = (o) => {
  const a = o.metadata.annotations ?? {};
  if (!a['helm.sh/hook']) return undefined;
  return { events: a['helm.sh/hook'], weight: Number(a['helm.sh/hook-weight'] ?? 0) };
};
let hookPolicies = 0;
for (const w of objects.filter((o) => o.spec?.template?.spec && hookOf(o))) {
  const hook = hookOf(w);
  const labels = w.spec.template.metadata?.labels ?? {};
  for (const np of objects.filter((o) => o.kind === 'NetworkPolicy')) {
    if (!selects(np.spec.podSelector, labels)) continue;
    // a policy that also selects the release's pods (the default deny) stays a release object
    const others = objects.filter(
      (o) =>
        o.spec?.template?.spec &&
        !hookOf(o) &&
        selects(np.spec.podSelector, o.spec.template.metadata?.labels),
    );
    if (others.length) continue;
    hookPolicies++;
    const own = hookOf(np);
    if (!own || own.events !== hook.events || !(own.weight < hook.weight))
      problems.push(
        `NetworkPolicy ${np.metadata.name} selects only the pods of ${w.kind} ${w.metadata.name} (a ${hook.events} hook, weight ${hook.weight}), but it is ${own ? `a ${own.events} hook of weight ${own.weight}` : 'a release object, applied after the hook ran'}: the hook runs under the previous release's policy`,
      );
  }
}
if (hookPolicies === 0) problems.push('no NetworkPolicy of the migration Job found');

// 12. No autoscaler on memory ------------------------------------------------------------

// A process's RSS is mostly its own baseline and does not fall when replicas are added
// (BENCHMARKS.md "Memory": the worker's 169-197 MB against a 256Mi request): a memory target
// near it holds the replicas where they are (the HPA's 10 % tolerance keeps a ratio of 0.92
// from scaling down) and ratchets them up at each peak, to the maximum, never down again.
let autoscalers = 0;
for (const o of objects.filter((x) =>
  ['HorizontalPodAutoscaler', 'ScaledObject'].includes(x.kind),
)) {
  autoscalers++;
  const memory =
    o.kind === 'ScaledObject'
      ? (o.spec.triggers ?? []).some((t) => t.type === 'memory')
      : (o.spec.metrics ?? []).some((m) => m.resource?.name === 'memory');
  if (memory)
    problems.push(
      `${o.kind} ${o.metadata.name} scales on memory: the processes' RSS does not fall with more replicas, so it scales up and never down (BENCHMARKS.md "Memory")`,
    );
}
if (autoscalers === 0) problems.push('no HorizontalPodAutoscaler or ScaledObject found');

if (problems.length > 0) {
  for (const p of problems) console.error(`chart contract: ${p}`);
  process.exit(1);
}
const made = [...created].map(([id, keys]) => `${id} (${keys.size} keys)`).join(', ');
console.log(
  `chart contracts hold: ${checkedRefs} references to ${read.Secret.size} Secrets and ${read.ConfigMap.size} ConfigMaps, each rendered, issued by one of ${issued.size} Certificates or created by the README's install step (${made}); ${livenessProbes} liveness and startup probes, none following a dependency; ${alerts} runbooks in docs/operating.md; receivers' ports as portPolicy.ts; the console behind named peers; ${httpProbes} HTTP probes, all on internal ports; ${grpcAddresses} gRPC addresses, each open under the NetworkPolicies both ways; ${rotationSettings} rotation settings (*_PREVIOUS), each mapped to the process that reads it; ${workerGraces} webhooks worker(s) whose shutdown outlasts a delivery attempt; ${hookPolicies} NetworkPolicy of a hook, created before it; ${autoscalers} autoscalers, none on memory${probeFrom ? `; ${probedPorts} probes, each port open to probeFrom (${probeFrom})` : ''}`,
);
