/** search_entities, search_founders, search_investors, search_transactions, search_news: one list route each. */
import type { Resource } from '../../filter/index.ts';
import type { RestHandler } from '../../rest/handler.ts';
import { cursorInput, DEFAULT_TOOL_LIMIT, fieldsInput, filterInput, limitInput, listOutput, sortInput } from '../inputs.ts';
import { toolError, toolResult, type RestGet } from '../rest-call.ts';
import { defineTool, type Tool } from '../tool.ts';

/** What each searchable resource holds, for the model choosing a tool. */
const SEARCHES: Readonly<Partial<Record<Resource, string>>> = {
  entities: 'companies (startups, corporates, investors as organisations): name, tagline, HQ, launch year, tags, funding',
  founders: 'people who founded companies, with their companies and roles',
  investors: 'investors (funds, angels, corporates) with their totals invested and portfolio counts',
  transactions: 'funding rounds: company, round type, amount in USD, date, investors (lead or not)',
  news: 'news articles about companies: title, source, type, publish date, mentioned companies',
};

interface Page {
  data: { id: number }[];
  page: { next_cursor: string | null };
}

/** A list route's answer as a tool's: the records and `next_cursor`. */
export async function listPage(get: RestGet, path: string, args: ListArgs): Promise<ReturnType<typeof toolResult>> {
  const answer = await get(path, {
    filter: args.filter,
    sort: args.sort?.join(','),
    fields: args.fields?.join(','),
    limit: args.limit ?? DEFAULT_TOOL_LIMIT,
    cursor: args.cursor,
  });
  if (answer.status !== 200) return toolError(answer);
  const { data, page } = answer.body as Page;
  return toolResult({ data, next_cursor: page.next_cursor });
}

export interface ListArgs {
  filter?: string | undefined;
  sort?: string[] | undefined;
  fields?: string[] | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** The inputs of a list of `resource` records served at `path`. */
export function listInputs(handle: RestHandler, resource: Resource, path: string) {
  return {
    filter: filterInput(resource),
    sort: sortInput(resource),
    fields: fieldsInput(handle.recordFields({ method: 'GET', path })),
    limit: limitInput,
    cursor: cursorInput,
  };
}

export function searchTools(handle: RestHandler): Tool[] {
  return Object.entries(SEARCHES).map(([resource, holds]) => {
    const path = `/api/${resource}`;
    return defineTool({
      name: `search_${resource}`,
      title: `Search ${resource}`,
      description:
        `Lists ${holds}, matching a filter expression, in a chosen order, a page at a time. ` +
        'Location ids for filters come from lookup_values; describe_filters lists every field and operator. ' +
        'Continue a list by passing its next_cursor back as cursor. Ask only for the fields you need.',
      input: listInputs(handle, resource as Resource, path),
      output: listOutput,
      run: (args, get) => listPage(get, path, args),
    });
  });
}
