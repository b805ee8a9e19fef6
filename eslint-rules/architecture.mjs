// Local ESLint rules that keep the module boundaries of ARCHITECTURE.md.
import { dirname, relative, resolve, sep } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** The feature folder (first folder under src/) of a file, or undefined outside src/. */
function featureOf(file) {
  const rel = relative(SRC, file);
  if (rel.startsWith('..') || !rel.includes(sep)) return undefined;
  return rel.split(sep)[0];
}

/** A feature reaches another feature's rows only through that feature's services or repositories. */
const noForeignEntity = {
  meta: {
    type: 'problem',
    docs: { description: "Forbids importing values from another feature's *.entity file outside entity files" },
    schema: [],
    messages: {
      foreign: "'{{importer}}' may not import the entity of feature '{{owner}}': use that module's exported service or repository.",
    },
  },
  create(context) {
    const file = context.filename;
    const importer = featureOf(file);
    // Entities may reference each other for relations; the database folder describes them all.
    if (!importer || file.endsWith('.entity.ts') || importer === 'database') return {};
    const check = (node) => {
      // Types cross freely (a service may take another feature's entity as a parameter); values do not:
      // an entity class is what reaches a table.
      if (node.importKind === 'type' || node.exportKind === 'type') return;
      if (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type')) return;
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.') || !/\.entity(\.js)?$/.test(source)) return;
      const owner = featureOf(resolve(dirname(file), source));
      if (owner && owner !== importer) context.report({ node, messageId: 'foreign', data: { importer, owner } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export default { rules: { 'no-foreign-entity': noForeignEntity } };
