import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';
import { checkFilled, type Errors } from '../../models/record-rules.ts';

/**
 * Roles of the reference's web interface: a role, its permissions per page and its users. Kept as
 * data (this API authorises with keys, not roles); rules and users go with their role.
 */

/** Roles (table `roles`). */
export const roleModel = defineModel({
  name: 'Role',
  table: 'roles',
  fields: {
    codrole: f.string(20, { primary: true }),
    descripcion: f.string(200, { notNull: true }),
  },
  validate(values) {
    const errors: Errors = {};
    checkFilled(errors, values, 'descripcion');
    return errors;
  },
});

/** What a role may do on one page (table `roles_access`), one row per role and page. */
export const roleAccessModel = defineModel({
  name: 'RoleAccess',
  table: 'roles_access',
  fields: {
    allowdelete: f.boolean({ notNull: true, default: true }),
    allowexport: f.boolean({ notNull: true, default: true }),
    allowimport: f.boolean({ notNull: true, default: true }),
    allowupdate: f.boolean({ notNull: true, default: true }),
    codrole: f.string(20, { notNull: true, references: f.ref('roles', 'codrole', 'CASCADE') }),
    id: f.serial(),
    onlyownerdata: f.boolean({ notNull: true, default: false }),
    pagename: f.string(40, { notNull: true }),
  },
  unique: [['codrole', 'pagename']],
});

/** Users of a role (table `roles_users`), deleted with the role or the user. */
export const roleUserModel = defineModel({
  name: 'RoleUser',
  table: 'roles_users',
  fields: {
    codrole: f.string(20, { notNull: true, references: f.ref('roles', 'codrole', 'CASCADE') }),
    id: f.serial(),
    nick: f.string(50, { notNull: true, references: f.ref('users', 'nick', 'CASCADE') }),
  },
  unique: [['codrole', 'nick']],
});
