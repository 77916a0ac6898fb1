import { columnAt } from './build.ts';

/** A tag's columns, which entities and founders group by (`group_by=tags.name`). */
export const TAG_COLUMNS = [columnAt(['name'], 'string'), columnAt(['type'], 'string')];
