#!/usr/bin/env node
// Validates a stream of rendered Kubernetes manifests (helm template output) against the
// Kubernetes API schemas of kubernetes-models (4.5.x: the last line that runs on Node 20).
//   node scripts/deploy/validateManifests.mjs <file.yaml> [label]   (or - for stdin)
// Fails on YAML errors, on an object without apiVersion/kind, on a kind the schemas do not
// know (a typo in `kind` or a CRD must not pass silently), and on any schema violation. On
// top of the schemas, which allow unknown fields, it checks what the chart promises: every
// container runs non-root with a read-only root filesystem and no capabilities.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseAllDocuments } from 'yaml';

const require = createRequire(import.meta.url);
const [file = '-', label = file] = process.argv.slice(2);
const text = readFileSync(file === '-' ? 0 : file, 'utf8');

/** apiVersion "apps/v1" -> kubernetes-models/apps/v1; "v1" -> kubernetes-models/v1. */
function modelFor(apiVersion, kind) {
  let mod;
  try {
    mod = require(`kubernetes-models/${apiVersion}`);
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
  for (const e of policyErrors(obj)) {
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
