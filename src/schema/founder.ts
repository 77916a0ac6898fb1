import { builder } from './builder.ts';

export const Founder = builder.prismaObject('Founder', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    name: t.exposeString('name'),
    tagline: t.exposeString('tagline'),
    image: t.exposeString('image'),
    platform_url: t.exposeString('platform_url'),
    gender: t.exposeString('gender'),
  }),
});
