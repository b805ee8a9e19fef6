// Local ESLint rules that keep the module boundaries of ARCHITECTURE.md. Their specs:
// test/unit/architecture-lint.spec.ts.
import { basename, dirname, relative, resolve, sep } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** The feature folder (first folder under src/) of a file, or undefined outside src/. */
function featureOf(file) {
  const rel = relative(SRC, file);
  if (rel.startsWith('..') || !rel.includes(sep)) return undefined;
  return rel.split(sep)[0];
}

/** Whether every name the declaration brings in is a type (`import type`, or each specifier `type X`). */
function typeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  return node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');
}

/** Calls `check(node, source, owner)` for every relative import or re-export of another feature's file. */
function foreignImports(context, check) {
  const file = context.filename;
  const importer = featureOf(file);
  if (!importer) return {};
  const visit = (node) => {
    const source = node.source?.value;
    if (typeof source !== 'string' || !source.startsWith('.')) return;
    const owner = featureOf(resolve(dirname(file), source));
    if (owner && owner !== importer) check(node, source, { importer, owner });
  };
  return { ImportDeclaration: visit, ExportNamedDeclaration: visit, ExportAllDeclaration: visit };
}

/** A feature reaches another feature's rows only through that feature's exported services. */
const noForeignEntity = {
  meta: {
    type: 'problem',
    docs: { description: "Forbids importing values from another feature's *.entity file outside entity files" },
    schema: [],
    messages: {
      foreign: "'{{importer}}' may not import the entity of feature '{{owner}}': use that module's exported service.",
    },
  },
  create(context) {
    // Entities may reference each other for relations; the database folder describes them all.
    if (context.filename.endsWith('.entity.ts') || featureOf(context.filename) === 'database') return {};
    return foreignImports(context, (node, source, data) => {
      // Types cross freely (a service may take another feature's entity as a parameter); values do not:
      // an entity class is what reaches a table.
      if (!typeOnly(node) && /\.entity(\.js)?$/.test(source)) context.report({ node, messageId: 'foreign', data });
    });
  },
};

/** A feature's repositories are its own: others call its services, which speak in operations. */
const noForeignRepository = {
  meta: {
    type: 'problem',
    docs: { description: "Forbids importing anything (values or types) from another feature's *.repository file" },
    schema: [],
    messages: {
      foreign:
        "'{{importer}}' may not import from the repository of feature '{{owner}}': call an operation of that module's exported service.",
    },
  },
  create(context) {
    return foreignImports(context, (node, source, data) => {
      // database/ holds the base classes every repository extends.
      if (data.owner !== 'database' && /\.repository(\.js)?$/.test(source)) context.report({ node, messageId: 'foreign', data });
    });
  },
};

/** TypeORM's handles on a connection: what ambient transactions (@Transactional) replace in services. */
const CONNECTION_HANDLES = new Set(['EntityManager', 'DataSource', 'QueryRunner']);

/**
 * Services never hold a transaction or a connection: they mark methods `@Transactional()` (or call
 * `inTransaction`), and repositories join the ambient transaction. Repositories, the database layer
 * and the outbox's own infrastructure (queue/) are where TypeORM's handles live.
 */
const noConnectionInServices = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbids EntityManager, DataSource and QueryRunner outside repositories, database/ and queue/' },
    schema: [],
    messages: {
      handle:
        "'{{name}}' is for repositories and the database layer: mark the service method @Transactional() (src/database/transactions.ts) and let repositories join it.",
    },
  },
  create(context) {
    const file = context.filename;
    const feature = featureOf(file);
    if (!feature || feature === 'database' || feature === 'queue' || basename(file).endsWith('.repository.ts')) return {};
    return {
      ImportDeclaration(node) {
        if (node.source.value !== 'typeorm') return;
        for (const specifier of node.specifiers) {
          const name = specifier.type === 'ImportSpecifier' ? specifier.imported.name : undefined;
          if (name && CONNECTION_HANDLES.has(name)) context.report({ node: specifier, messageId: 'handle', data: { name } });
        }
      },
    };
  },
};

export default {
  rules: {
    'no-foreign-entity': noForeignEntity,
    'no-foreign-repository': noForeignRepository,
    'no-connection-in-services': noConnectionInServices,
  },
};
