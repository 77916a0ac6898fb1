import { builder } from './builder.ts';
import { column } from './follow.ts';

export const Tag = builder.prismaObject('Tag', {
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.int(column('id', { example: 12 })),
    name: t.string(column('name', { example: 'Fintech' })),
    type: t.string(column('type', { example: 'industry' })),
  }),
});
