import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

interface ResponseSpec {
  content?: Record<string, { schema?: unknown }>;
}
interface Operation {
  responses: Record<string, ResponseSpec>;
}
type PathItem = Record<string, Operation>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Document {
  paths: Record<string, PathItem>;
  /** The event deliveries (OpenAPI 3.1 `webhooks`): one POST per event type. */
  webhooks?: Record<string, { post?: { parameters?: Parameter[] } }>;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');

const DOC_ID = 'https://brand-records.test/openapi.json';
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Validates live responses against the OpenAPI document the gateway serves: the path
 * template (concrete paths before templated ones, as OpenAPI matches), the method, the
 * status and the JSON body schema, with $refs resolved by Ajv (JSON Schema 2020-12, as
 * OpenAPI 3.1 uses). A response to an undocumented method or path must still be one of
 * the documented error bodies (REST Error, or a JSON-RPC error under /api/mcp).
 */
export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; regex: RegExp; concrete: boolean }>;

  constructor(private readonly doc: Document) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
    this.templates = Object.keys(doc.paths)
      .map((template) => ({
        template,
        regex: new RegExp(
          `^${template
            .split(/\{[^}]+\}/)
            .map(escapeRegExp)
            .join('[^/]+')}$`,
        ),
        concrete: !template.includes('{'),
      }))
      .sort((a, b) => Number(b.concrete) - Number(a.concrete));
  }

  static fromYaml(yaml: string): OpenApiValidator {
    return new OpenApiValidator(parsedDocument(yaml));
  }

  /** Returns a list of problems (empty when the response matches the document). */
  check(
    method: string,
    path: string,
    status: number,
    contentType: string | null,
    body: string,
  ): string[] {
    const pathname = path.split('?')[0]!;
    const template = this.templates.find((t) => t.regex.test(pathname))?.template;
    const operation = template ? this.doc.paths[template]?.[method.toLowerCase()] : undefined;
    if (!template || !operation) return this.checkUndocumented(pathname, status, body);

    const key = operation.responses[String(status)]
      ? String(status)
      : operation.responses[`${String(status)[0]}XX`]
        ? `${String(status)[0]}XX`
        : 'default';
    const response = operation.responses[key];
    if (!response) return [`${method} ${template}: status ${status} is not documented`];
    if (!response.content)
      return body.length === 0
        ? []
        : [`${method} ${template} ${status}: documented without a body, got one`];
    const mediaType = (contentType ?? '').split(';')[0]!.trim();
    if (!response.content[mediaType])
      return [`${method} ${template} ${status}: content type ${mediaType} is not documented`];
    if (mediaType !== 'application/json') return [];
    const schemaRef = `${DOC_ID}#/${pointer('paths', template, method.toLowerCase(), 'responses', key, 'content', mediaType, 'schema')}`;
    return this.validate(schemaRef, body, `${method} ${template} ${status}`);
  }

  /**
   * Checks one delivery a receiver got against the document's `webhooks`: each documented
   * header (present when required, its value against its schema) and the raw JSON body
   * against the request body schema. Returns the problems (empty when it matches).
   */
  checkWebhook(
    type: string,
    headers: Record<string, string | string[] | undefined>,
    rawBody: string,
  ): string[] {
    const operation = this.doc.webhooks?.[type]?.post;
    if (!operation) return [`webhook ${type} is not in the document`];
    const problems: string[] = [];
    for (const [i, param] of (operation.parameters ?? []).entries()) {
      if (param.in !== 'header') continue;
      const value = headers[param.name.toLowerCase()];
      if (value === undefined) {
        if (param.required) problems.push(`webhook ${type}: header ${param.name} is missing`);
        continue;
      }
      const ref = `${DOC_ID}#/${pointer('webhooks', type, 'post', 'parameters', String(i), 'schema')}`;
      problems.push(...this.validateValue(ref, value, `webhook ${type} header ${param.name}`));
    }
    const bodyRef = `${DOC_ID}#/${pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema')}`;
    problems.push(...this.validate(bodyRef, rawBody, `webhook ${type} body`));
    return problems;
  }

  private checkUndocumented(pathname: string, status: number, body: string): string[] {
    if (status < 400) return [`${pathname}: undocumented path answered ${status}`];
    // the gateway matches paths as express does, in any case
    const schema = pathname.toLowerCase().startsWith('/api/mcp') ? 'JsonRpcErrorResponse' : 'Error';
    return this.validate(
      `${DOC_ID}#/components/schemas/${schema}`,
      body,
      `${pathname} ${status} (undocumented, as ${schema})`,
    );
  }

  private validate(ref: string, body: string, label: string): string[] {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`${label}: body is not JSON: ${body.slice(0, 200)}`];
    }
    return this.validateValue(ref, value, label);
  }

  private validateValue(ref: string, value: unknown, label: string): string[] {
    let fn = this.cache.get(ref);
    if (!fn) {
      fn = this.ajv.compile({ $ref: ref });
      this.cache.set(ref, fn);
    }
    return fn(value) ? [] : [`${label}: ${this.ajv.errorsText(fn.errors, { separator: '; ' })}`];
  }
}

/**
 * The served document, parsed: YAML parsing took about a third of a second of each gateway test
 * file's CPU (jest gives every file its own modules, so nothing in memory outlives a file), so
 * the parse is kept on disk under the SHA-256 of the exact text served, and a file that sees the
 * same bytes reads JSON instead. A different document is a different key, never a stale parse.
 */
function parsedDocument(yaml: string): Document {
  const dir = path.join(tmpdir(), 'brand-records-openapi-parsed');
  const file = path.join(dir, `${createHash('sha256').update(yaml).digest('hex')}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Document;
  } catch {
    const doc = parse(yaml) as Document;
    mkdirSync(dir, { recursive: true });
    // written whole under another name first: a file read beside this one never sees half of it
    const part = `${file}.${process.pid}.part`;
    writeFileSync(part, JSON.stringify(doc));
    renameSync(part, file);
    return doc;
  }
}
