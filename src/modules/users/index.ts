import type { Module } from '../../module.ts';
import { pageFilterModel, pageModel, pageOptionModel } from './page-models.ts';
import { roleAccessModel, roleModel, roleUserModel } from './role-models.ts';
import { userModel } from './user-model.ts';

export { pageFilterModel, pageModel, pageOptionModel, roleAccessModel, roleModel, roleUserModel, userModel };
export { disarmImportedUsers, IMPORTED_USERS_NOTE, userNicks } from './imported-users.ts';

/**
 * Users of the installation (authors of documents, owners of keys), and the reference interface's
 * roles, pages and the filters and layouts users saved.
 */
export function usersModule(): Module {
  return { name: 'users', models: [userModel, roleModel, roleAccessModel, roleUserModel, pageModel, pageFilterModel, pageOptionModel] };
}
