/**
 * The table each Prisma model is stored in (its `@@map` in prisma/schema.prisma), for the SQL the
 * service writes itself (src/compile). Keyed by Prisma's generated model names, so a new model does
 * not compile until its table is named here; test/integration/compile/tables.test.ts checks every
 * table and column against the migrated database.
 */
import type { Prisma } from './generated/prisma/client.ts';

export const TABLES: Readonly<Record<Prisma.ModelName, string>> = Object.freeze({
  Location: 'locations',
  LocationSpelling: 'location_spellings',
  Tag: 'tags',
  Entity: 'entities',
  EntityTag: 'entity_tags',
  EntityExternalId: 'entity_external_ids',
  EntitySearchName: 'entity_search_names',
  Founder: 'founders',
  FounderSearchName: 'founder_search_names',
  FounderTag: 'founder_tags',
  FounderCompany: 'founder_companies',
  FounderEducation: 'founder_education',
  Background: 'backgrounds',
  FounderBackground: 'founder_backgrounds',
  Investor: 'investors',
  FundingRound: 'funding_rounds',
  RoundInvestor: 'round_investors',
  Valuation: 'valuations',
  NewsArticle: 'news_articles',
  NewsEntity: 'news_entities',
  Organization: 'organizations',
  Ecosystem: 'ecosystems',
  Landscape: 'landscapes',
  LandscapeEntity: 'landscape_entities',
  Team: 'teams',
  TeamMember: 'team_members',
  TeamInvitation: 'team_invitations',
  ApiKey: 'api_keys',
  UsageBucket: 'usage_buckets',
  SigningKey: 'signing_keys',
  ChangeClock: 'change_clock',
  ChangeCommit: 'change_commits',
  Change: 'changes',
  EntityStats: 'entity_stats',
  SimilarityProfile: 'similarity_profiles',
  ChangeRetention: 'change_retention',
  ChangeFollower: 'change_followers',
  EcosystemMember: 'ecosystem_members',
  EcosystemMembership: 'ecosystem_memberships',
  Webhook: 'webhooks',
  WebhookEvent: 'webhook_events',
  WebhookDelivery: 'webhook_deliveries',
  WebhookAttempt: 'webhook_attempts',
});
