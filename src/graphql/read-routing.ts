/**
 * Which database answers an operation (docs/operations.md, "Read replicas"). A query whose every root
 * field a replica may answer (`replicaReads`, src/schema/resource.ts) reads from a ready replica; all
 * else (writes, management reads, an operation mixing both) from the primary, on the whole request, so
 * one answer never mixes two databases' moments.
 *
 * Read-your-writes: after a principal's mutation, the primary's WAL position is remembered for that
 * principal, and its reads go to a replica only once the replica has replayed that position (as of the
 * replica's last check), else to the primary. The positions live in this process: with several
 * instances behind a balancer, the guarantee holds for a principal whose requests reach the same
 * instance (see the docs for the balancer setting that gives that).
 */
import { getOperationAST, Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Principal } from '../auth/principal.ts';
import type { PrismaClient } from '../db/client.ts';
import type { Replica, ReplicaSet } from '../db/replicas.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { REPLICA_READS } from '../schema/resource.ts';

/** What an operation reads through. */
export type ReadTarget = Pick<GraphQLContext, 'prisma' | 'sql'>;

export interface ReadRouting {
  /** Where `document` reads (the operation runner asks before it runs any operation). */
  route(context: GraphQLContext, document: DocumentNode, operationName?: string | null): ReadTarget;
  /** After a principal's write committed: its next reads go to a replica only once that replica has replayed it. */
  remember(principal: Principal): Promise<void>;
}

export interface ReadRoutingOptions {
  replicas: ReplicaSet;
  schema: GraphQLSchema;
  registry: Registry;
  /** The primary's clients for a principal (its organisation's scoped Prisma client). */
  primary: (principal: Principal | null) => ReadTarget;
  /** A replica's Prisma client for a principal, scoped likewise. */
  replicaPrisma: (replica: Replica, principal: Principal | null) => PrismaClient;
}

/** Why the primary answered a read that a replica could have. */
type Reason = 'read_your_writes' | 'no_ready_replica';

/** Principals whose last write is remembered; past it, all are forgotten (their reads then go to replicas at once). */
const POSITIONS_KEPT = 100_000;

export function createReadRouting(options: ReadRoutingOptions): ReadRouting {
  const { replicas } = options;
  const positions = new Map<string, bigint>();
  const replicaDocuments = new WeakMap<OperationDefinitionNode, boolean>();

  const reads = new Counter({
    name: 'database_reads_total',
    help: 'Operations by the database that answered them: replica (data_read), or primary with why (primary_only: a write or a management read; read_your_writes; no_ready_replica)',
    labelNames: ['target', 'reason'],
    registers: [options.registry],
  });
  const replicaLabels = ['replica', 'host'] as const;
  new Gauge({
    name: 'database_replica_up',
    help: 'Whether a read replica serves reads (1: ready; 0: lagging or down), with its state as a label',
    labelNames: [...replicaLabels, 'state'],
    registers: [options.registry],
    collect() {
      this.reset();
      for (const status of replicas.status()) this.set({ replica: status.name, host: status.host, state: status.state }, status.state === 'ready' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'database_replica_lag_seconds',
    help: "How long ago the primary wrote the oldest WAL a replica has not replayed (absent while it is down)",
    labelNames: replicaLabels,
    registers: [options.registry],
    collect() {
      this.reset();
      for (const status of replicas.status()) if (status.lagMs !== null) this.set({ replica: status.name, host: status.host }, status.lagMs / 1_000);
    },
  });
  new Gauge({
    name: 'database_replica_fallbacks',
    help: 'Reads a replica failed for a connection reason, answered by the primary instead (a count since start)',
    labelNames: replicaLabels,
    registers: [options.registry],
    collect() {
      this.reset();
      for (const status of replicas.status()) this.set({ replica: status.name, host: status.host }, status.fallbacks);
    },
  });

  const mayUseReplica = (operation: OperationDefinitionNode, document: DocumentNode): boolean => {
    let known = replicaDocuments.get(operation);
    if (known === undefined) {
      known = operation.operation === 'query' && rootFieldsAllow(operation.selectionSet, document, options.schema);
      replicaDocuments.set(operation, known);
    }
    return known;
  };

  const route = (context: GraphQLContext, document: DocumentNode, operationName?: string | null): ReadTarget => {
    const operation = getOperationAST(document, operationName);
    if (!operation || !mayUseReplica(operation, document)) {
      reads.inc({ target: 'primary', reason: 'primary_only' });
      return options.primary(context.principal);
    }
    const after = context.principal ? positions.get(context.principal.subject) : undefined;
    const replica = replicas.pick(after);
    if (!replica) {
      const reason: Reason = after !== undefined && replicas.pick() ? 'read_your_writes' : 'no_ready_replica';
      reads.inc({ target: 'primary', reason });
      return options.primary(context.principal);
    }
    if (after !== undefined && context.principal) positions.delete(context.principal.subject);
    reads.inc({ target: 'replica', reason: 'data_read' });
    return { prisma: options.replicaPrisma(replica, context.principal), sql: replica.sql };
  };

  const remember = async (principal: Principal) => {
    const position = await replicas.writePosition();
    if (positions.size >= POSITIONS_KEPT) positions.clear();
    positions.set(principal.subject, position);
  };

  return { route, remember };
}

/** Whether every root field selected (through fragments too) is one a replica may answer. */
function rootFieldsAllow(selectionSet: SelectionSetNode, document: DocumentNode, schema: GraphQLSchema): boolean {
  const fields = schema.getQueryType()?.getFields() ?? {};
  const allow = (set: SelectionSetNode): boolean =>
    set.selections.every((selection) => {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        // Introspection reads no table.
        if (name.startsWith('__')) return true;
        return fields[name]?.extensions?.[REPLICA_READS] === true;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) return allow(selection.selectionSet);
      const fragment = document.definitions.find(
        (definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value,
      );
      return fragment?.kind === Kind.FRAGMENT_DEFINITION && allow(fragment.selectionSet);
    });
  return allow(selectionSet);
}
