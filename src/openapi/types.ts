/**
 * The parts of OpenAPI 3.1 this generator writes. Schemas are JSON Schema 2020-12 (OpenAPI 3.1's
 * dialect), so `null` is a type (`type: ['integer', 'null']`), never the 3.0 `nullable` keyword.
 */

export type JsonType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface JsonSchema {
  $ref?: string;
  type?: JsonType | JsonType[];
  format?: string;
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: readonly JsonValue[];
  const?: JsonValue;
  default?: JsonValue;
  examples?: JsonValue[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  pattern?: string;
  not?: JsonSchema;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header';
  description?: string;
  required?: boolean;
  schema: JsonSchema;
  style?: 'form' | 'simple';
  explode?: boolean;
  example?: JsonValue;
}

export interface Reference {
  $ref: string;
}

export interface HeaderObject {
  description?: string;
  schema: JsonSchema;
}

export interface MediaTypeObject {
  schema: JsonSchema;
  example?: JsonValue;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
}

export interface RequestBodyObject {
  description?: string;
  required?: boolean;
  content: Record<string, MediaTypeObject>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface OperationObject {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: SecurityRequirement[];
  parameters?: (ParameterObject | Reference)[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | Reference>;
  /** Permissions the operation may need (see its description for when). */
  'x-permissions'?: string[];
}

export type HttpVerb = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type PathItem = { description?: string } & Partial<Record<HttpVerb, OperationObject>>;

export interface SecuritySchemeObject {
  type: 'http' | 'oauth2' | 'apiKey';
  description?: string;
  /** An `apiKey` scheme's header. */
  in?: 'header';
  name?: string;
  scheme?: string;
  bearerFormat?: string;
  flows?: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } };
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description?: string;
    license?: { name: string; identifier?: string };
    contact?: { name?: string; url?: string; email?: string };
  };
  servers: { url: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    headers: Record<string, HeaderObject>;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, SecuritySchemeObject>;
  };
}
