import { builder } from './builder.ts';

export const Tag = builder.prismaObject('Tag', {
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    type: t.exposeString('type'),
  }),
});
