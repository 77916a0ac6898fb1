/** The resources of the import format, in the order they are loaded (later ones point at earlier ones). */
export const IMPORT_RESOURCES = ['entities', 'investors', 'founders', 'transactions', 'valuations', 'news'] as const;
export type ImportResource = (typeof IMPORT_RESOURCES)[number];

/** Records imported per resource (0 when its file was absent). */
export type ImportCounts = Record<ImportResource, number>;

export interface ImportProgress {
  resource: ImportResource;
  /** File name as found in the directory, e.g. `entities.jsonl.gz`. */
  file: string;
  /** Records read and written so far in this file. */
  records: number;
  /** Bytes of the file read so far (compressed bytes for .gz) and its size, for a percentage. */
  bytesRead: number;
  totalBytes: number;
  done: boolean;
}

export interface ImportOptions {
  onProgress?: ((progress: ImportProgress) => void) | undefined;
  /** Records per write statement; smaller batches only help memory. */
  batchSize?: number | undefined;
}

export function emptyCounts(): ImportCounts {
  return { entities: 0, investors: 0, founders: 0, transactions: 0, valuations: 0, news: 0 };
}
