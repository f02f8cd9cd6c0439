import { writeFileSync } from 'node:fs';
import { renderOpenApiYaml } from './document';

/**
 * `node gateway/dist/openapi/writeDocument.js <file>`: writes the document served at
 * /openapi/service.yaml to a file, for linting and for readers of the repository.
 */
const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: writeDocument.js <output.yaml>\n');
  process.exit(2);
}
writeFileSync(target, renderOpenApiYaml());
