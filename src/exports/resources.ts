/**
 * What can be exported: the resources of the changes feed (so every export has a cursor to follow),
 * each by its list's name (`entities`), its list's path and the name its changes carry (`entity`).
 */
import { CHANGE_RESOURCES, type ChangeResource } from '../changes/resources.ts';

export type ExportResource = (typeof CHANGE_RESOURCES)[ChangeResource];
export const EXPORT_RESOURCES = Object.values(CHANGE_RESOURCES) as ExportResource[];
export const EXPORT_FORMATS = ['ndjson', 'csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The list an export reads its rows from (the REST list with the same filter and fields). */
export const listPath = (resource: ExportResource): string => `/api/${resource}`;

/** The resource's name in the changes feed (`entities` → `entity`). */
export function changeResourceOf(resource: ExportResource): ChangeResource {
  const found = (Object.entries(CHANGE_RESOURCES) as [ChangeResource, ExportResource][]).find(([, name]) => name === resource);
  if (!found) throw new Error(`${resource} has no changes`);
  return found[0];
}

/** A file's name as a download suggests it: `entities-12-1.ndjson.gz`. */
export const fileSuffix: Readonly<Record<ExportFormat, string>> = { ndjson: '.ndjson.gz', csv: '.csv.gz', parquet: '.parquet' };
export const fileContentType: Readonly<Record<ExportFormat, string>> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};
