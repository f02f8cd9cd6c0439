#!/usr/bin/env node
// Catches misspelt or misplaced fields in rendered manifests, which the Kubernetes schemas of
// kubernetes-models accept (they allow unknown properties; the API server would silently drop
// them, e.g. a probe at the pod level). Each object becomes a typed object literal in a
// generated TypeScript file, and tsc's excess-property check rejects any field the
// kubernetes-types definitions do not have.
//   node scripts/deploy/checkUnknownFields.mjs <label>=<file.yaml> ...
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const outDir = path.join(root, '.local', 'deploy-check');
const outFile = path.join(outDir, 'manifests.ts');

/**
 * The custom resources' types: the interfaces of the model packages that validateManifests.mjs
 * validates them with (generated from the CRDs' schemas).
 */
const CRD_PACKAGES = {
  'cert-manager.io': '@kubernetes-models/cert-manager',
  'keda.sh': '@kubernetes-models/keda',
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
};

/**
 * The module and exported name of an object's type: apiVersion "networking.k8s.io/v1" ->
 * kubernetes-types/networking/v1 (NetworkPolicy); "v1" -> core/v1; "keda.sh/v1alpha1" ->
 * @kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject (IScaledObject).
 */
function typeOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['core', apiVersion];
  const pkg = CRD_PACKAGES[group];
  if (pkg) return { mod: `${pkg}/${apiVersion}/${kind}`, name: `I${kind}` };
  return { mod: `kubernetes-types/${group.split('.')[0]}/${version}`, name: kind };
}

/**
 * Fields newer than the CRD schemas of the model packages on the Node 20 line
 * (@kubernetes-models/keda 0.4.x), checked here by hand and dropped before the type check:
 * podIdentity.identityOwner (KEDA 2.13+: the aws provider assumes the workload's own role; in
 * @kubernetes-models/keda 2.x's AuthPodIdentity, which needs Node 22).
 */
const NEWER_FIELDS = {
  TriggerAuthentication: (obj) => {
    const identity = obj.spec?.podIdentity;
    if (identity && 'identityOwner' in identity) {
      if (!['keda', 'workload'].includes(identity.identityOwner))
        throw new Error(`podIdentity.identityOwner ${identity.identityOwner}: keda or workload`);
      delete identity.identityOwner;
    }
  },
};

const imports = new Map();
const lines = [];
const where = [];
for (const arg of process.argv.slice(2)) {
  const [label, file] = arg.includes('=') ? arg.split(/=(.*)/s) : [arg, arg];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const obj = doc.toJS();
    if (!obj) continue;
    NEWER_FIELDS[obj.kind]?.(obj);
    const { mod, name } = typeOf(obj.apiVersion, obj.kind);
    const alias = `${mod.replace(/[^a-z0-9]/gi, '_')}_${obj.kind}`;
    imports.set(alias, `import type { ${name} as ${alias} } from '${mod}';`);
    lines.push(`// ${where.length}: ${label} ${obj.kind} ${obj.metadata?.name}`);
    lines.push(`export const o${where.length}: ${alias} = ${JSON.stringify(obj)};`);
    where.push(`${label} ${obj.kind} ${obj.metadata?.name}`);
  }
}
mkdirSync(outDir, { recursive: true });
writeFileSync(outFile, [...imports.values(), ...lines, ''].join('\n'));

const tsc = require.resolve('typescript/bin/tsc');
const res = spawnSync(
  process.execPath,
  [
    tsc,
    '--noEmit',
    '--strict',
    '--skipLibCheck',
    '--types',
    'node',
    '--module',
    'commonjs',
    '--target',
    'es2022',
    outFile,
  ],
  { cwd: root, encoding: 'utf8' },
);
if (res.status !== 0) {
  // Point each error at the object it came from.
  const out = `${res.stdout}${res.stderr}`.replace(/manifests\.ts\((\d+),\d+\)/g, (m, line) => {
    const n = Math.floor((Number(line) - imports.size - 1) / 2);
    return `${m} [${where[n] ?? '?'}]`;
  });
  console.error(out.trim());
  console.error('unknown or mistyped fields in rendered manifests (see above)');
  process.exit(1);
}
console.log(`no unknown fields in ${where.length} objects`);
