import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { ESLint, RuleTester, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';
import { REPO_ROOT } from '../support/fresh-clone.js';

// The architecture's lint rules (eslint-rules/architecture.mjs): each one on code that keeps the
// rule and on a planted violation, and, through the project's own ESLint config, on files of src/.

type RulesModule = { default: { rules: Record<string, Rule.RuleModule> } };
// require() of an ES module (Node ≥ 22.12), so that the rule testers can be declared at the top level.
const { rules } = (createRequire(__filename)(join(REPO_ROOT, 'eslint-rules', 'architecture.mjs')) as RulesModule).default;

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 2024, sourceType: 'module' } });
const inSrc = (path: string) => join(REPO_ROOT, 'src', path);

tester.run('no-foreign-repository', rules['no-foreign-repository'], {
  valid: [
    { filename: inSrc('whatsapp/status.service.ts'), code: "import { SendClaimsRepository } from './send-claims.repository.js';" },
    { filename: inSrc('whatsapp/status.service.ts'), code: "import { MessageEvents } from '../conversations/message-events.service.js';" },
    {
      filename: inSrc('tags/tags.repository.ts'),
      code: "import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';",
    },
    {
      filename: join(REPO_ROOT, 'test/e2e/x.e2e-spec.ts'),
      code: "import { ContactsRepository } from '../../src/contacts/contacts.repository.js';",
    },
  ],
  invalid: [
    {
      filename: inSrc('whatsapp/status.service.ts'),
      code: "import { ConversationEventsRepository } from '../conversations/conversation-events.repository.js';",
      errors: [{ messageId: 'foreign' }],
    },
    {
      filename: inSrc('send-policy/send-scheduler.service.ts'),
      code: "import type { ContactRef } from '../contacts/contact-property-values.repository.js';",
      errors: [{ messageId: 'foreign' }],
    },
    {
      filename: inSrc('campaigns/index.ts'),
      code: "export * from '../contacts/contacts.repository.js';",
      errors: [{ messageId: 'foreign' }],
    },
  ],
});

tester.run('no-foreign-entity', rules['no-foreign-entity'], {
  valid: [
    { filename: inSrc('whatsapp/status.service.ts'), code: "import type { Contact } from '../contacts/contact.entity.js';" },
    { filename: inSrc('whatsapp/status.service.ts'), code: "import { SendClaim } from './send-claim.entity.js';" },
    { filename: inSrc('campaigns/campaign.entity.ts'), code: "import { Channel } from '../channels/channel.entity.js';" },
  ],
  invalid: [
    {
      filename: inSrc('whatsapp/status.service.ts'),
      code: "import { Contact } from '../contacts/contact.entity.js';",
      errors: [{ messageId: 'foreign' }],
    },
  ],
});

tester.run('no-connection-in-services', rules['no-connection-in-services'], {
  valid: [
    { filename: inSrc('contacts/contacts.repository.ts'), code: "import type { EntityManager } from 'typeorm';" },
    { filename: inSrc('database/sql-helpers.ts'), code: "import type { EntityManager } from 'typeorm';" },
    { filename: inSrc('queue/outbox.relay.ts'), code: "import { DataSource } from 'typeorm';" },
    { filename: inSrc('contacts/contacts.service.ts'), code: "import type { QueryDeepPartialEntity } from 'typeorm';" },
  ],
  invalid: [
    {
      filename: inSrc('contacts/contacts.service.ts'),
      code: "import type { EntityManager } from 'typeorm';",
      errors: [{ messageId: 'handle', data: { name: 'EntityManager' } }],
    },
    {
      filename: inSrc('whatsapp/status.service.ts'),
      code: "import { DataSource, In, type QueryRunner } from 'typeorm';",
      errors: [
        { messageId: 'handle', data: { name: 'DataSource' } },
        { messageId: 'handle', data: { name: 'QueryRunner' } },
      ],
    },
  ],
});

describe('the project’s ESLint config applies the architecture rules to src/', () => {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  // A real file for a moment: the type-aware rules of the config need it in the TypeScript project.
  const lint = async (path: string, code: string) => {
    const file = join(REPO_ROOT, path);
    writeFileSync(file, code);
    try {
      const [result] = await eslint.lintFiles([file]);
      return result.messages.map((m) => m.ruleId ?? m.message);
    } finally {
      rmSync(file, { force: true });
    }
  };

  it('fails a service that imports another feature’s repository, or holds an EntityManager', async () => {
    const planted = [
      "import { ConversationEventsRepository } from '../conversations/conversation-events.repository.js';",
      "import type { EntityManager } from 'typeorm';",
      'export type Planted = [ConversationEventsRepository, EntityManager];',
      '',
    ].join('\n');
    const found = await lint('src/whatsapp/planted-violation.service.ts', planted);
    assert.ok(found.includes('architecture/no-foreign-repository'), `rules reported: ${found.join(', ')}`);
    assert.ok(found.includes('architecture/no-connection-in-services'), `rules reported: ${found.join(', ')}`);
  });

  it('passes the same service written against the owner’s exported operations', async () => {
    const clean = [
      "import type { MessageEvents } from '../conversations/message-events.service.js';",
      'export type Clean = MessageEvents;',
      '',
    ].join('\n');
    assert.deepEqual(await lint('src/whatsapp/planted-violation.service.ts', clean), []);
  });
});
