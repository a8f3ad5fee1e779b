import type { Module } from '../../module.ts';
import { userModel } from './user-model.ts';

export { userModel };

/** Users of the installation (authors of documents, owners of keys). */
export function usersModule(): Module {
  return { name: 'users', models: [userModel] };
}
