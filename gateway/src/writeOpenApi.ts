import { writeFileSync } from 'node:fs';
import { renderServedDocument } from './endpoints/describeEndpoints';

/**
 * `node gateway/dist/writeOpenApi.js <file>`: writes the document served at
 * /openapi/service.yaml to a file, for linting and for readers of the repository.
 */
const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: writeOpenApi.js <output.yaml>\n');
  process.exit(2);
}
writeFileSync(target, renderServedDocument(undefined));
