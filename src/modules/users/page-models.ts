import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';

/**
 * Pages of the reference's web interface and the list filters and layouts users saved for them.
 * Kept as data for clients that sync them; a user's saved filters and layouts go with the user.
 */

/** Registered pages (table `pages`), the targets of `users.homepage`. */
export const pageModel = defineModel({
  name: 'Page',
  table: 'pages',
  fields: {
    icon: f.string(50),
    menu: f.string(20),
    name: f.string(40, { primary: true }),
    ordernum: f.integer({ notNull: true, default: 100 }),
    showonmenu: f.boolean({ notNull: true, default: true }),
    submenu: f.string(20),
    title: f.string(50, { notNull: true }),
  },
});

/** Saved list filters (table `pages_filters`). */
export const pageFilterModel = defineModel({
  name: 'PageFilter',
  table: 'pages_filters',
  fields: {
    description: f.string(50, { notNull: true }),
    filters: f.text(),
    id: f.serial(),
    name: f.string(40, { notNull: true }),
    nick: f.string(50, { references: f.ref('users', 'nick', 'CASCADE') }),
  },
});

/** Saved list and edit layouts (table `pages_options`), one per page and user (no user: everybody's). */
export const pageOptionModel = defineModel({
  name: 'PageOption',
  table: 'pages_options',
  fields: {
    columns: f.text(),
    id: f.serial(),
    last_update: f.timestamp(),
    modals: f.text(),
    name: f.string(40, { notNull: true }),
    nick: f.string(50, { references: f.ref('users', 'nick', 'CASCADE') }),
    rows: f.text(),
  },
  unique: [['name', 'nick']],
});
