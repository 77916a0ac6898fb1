// Checks a server's answer against /openapi.json, as a validating proxy would check responses: its
// status is listed for the operation, each header the document can describe that it carries is
// declared on that response, and a JSON body fits the response's schema.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/index.ts';
import type { OperationObject, Reference, ResponseObject } from '../../src/openapi/types.ts';

export interface DocumentValidator {
  doc: OpenApiDocument;
  ajv: Ajv2020;
  /** Compiled response schemas by JSON pointer. */
  compiled: Map<string, ValidateFunction>;
}

const validators = new WeakMap<OpenApiDocument, DocumentValidator>();

/** Ajv (JSON Schema 2020-12 with formats) holding the document, so `openapi#/...` pointers resolve. */
export function documentValidator(doc: OpenApiDocument): DocumentValidator {
  let validator = validators.get(doc);
  if (!validator) {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    for (const keyword of Object.keys(doc)) ajv.addKeyword(keyword);
    ajv.addSchema(doc, 'openapi');
    validators.set(doc, (validator = { doc, ajv, compiled: new Map() }));
  }
  return validator;
}

const pointer = (...segments: string[]): string => segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The response object a status resolves to, and the JSON pointer of its schema. */
function declaredResponse(doc: OpenApiDocument, template: string, method: string, status: number): { response: ResponseObject; at: string } | undefined {
  const operation = doc.paths[template]?.[method as 'get'] as OperationObject | undefined;
  const entry = operation?.responses[String(status)] as ResponseObject | Reference | undefined;
  if (!entry) return undefined;
  if ('$ref' in entry) {
    const name = entry.$ref.split('/').pop()!;
    return { response: doc.components.responses[name]!, at: pointer('components', 'responses', name) };
  }
  return { response: entry, at: pointer('paths', template, method, 'responses', String(status)) };
}

/** The headers the document has components for (RateLimit-*, Retry-After, Allow ...). */
const describedHeaders = (doc: OpenApiDocument): string[] => Object.keys(doc.components.headers ?? {});

export function checkAnswer(validator: DocumentValidator, template: string, method: string, response: Response, body: unknown): void {
  const { doc, ajv, compiled } = validator;
  const what = `${method.toUpperCase()} ${template} → ${response.status}`;
  const declared = declaredResponse(doc, template, method, response.status);
  expect(declared, `${what}: status not listed`).toBeDefined();
  const headers = Object.keys(declared!.response.headers ?? {}).map((name) => name.toLowerCase());
  const sent = describedHeaders(doc).filter((name) => response.headers.has(name));
  expect(sent.filter((name) => !headers.includes(name.toLowerCase())), `${what}: headers sent but not declared`).toEqual([]);
  const json = declared!.response.content?.['application/json'];
  if (json && typeof body === 'object' && body !== null) {
    const at = `openapi#/${declared!.at}/content/application~1json/schema`;
    let validate = compiled.get(at);
    if (!validate) compiled.set(at, (validate = ajv.compile({ $ref: at })));
    expect(validate(body) ? [] : validate.errors, `${what}: body does not fit the schema`).toEqual([]);
  }
}
