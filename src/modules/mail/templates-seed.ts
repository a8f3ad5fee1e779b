import type { DataSeed } from '../../db/data-seeds.ts';
import { DOCUMENT_TYPES } from '../documents/index.ts';
import { DEFAULT_TEXTS, documentTemplateName } from './default-templates.ts';

/**
 * The reference installation's eight `sendmail-<Doc>` templates (Spanish), so that a client
 * listing `emailnotifications` finds them to edit; the other languages' texts are built in until
 * a template of their name is added (docs/email.md, "Templates").
 */
export const templatesSeed: DataSeed = {
  id: 'mail-templates',
  async run(ctx, trx) {
    const texts = DEFAULT_TEXTS.es!;
    const rows = DOCUMENT_TYPES.map((type) => ({
      name: documentTemplateName(type.name, 'es'), subject: texts.documentSubject, body: texts.documentBody,
      enabled: ctx.database.dialect.boolean(true), creationdate: ctx.clock.today().date,
    }));
    await ctx.database.dialect.insertIgnore(trx.insertInto('emails_notifications').values(rows), ['name']).execute();
    return true;
  },
};
