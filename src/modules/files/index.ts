import type { Module } from '../../module.ts';
import { attachedFileModel, attachedFileRelationModel } from './file-models.ts';

export { attachedFileModel, attachedFileRelationModel };

/** Attached files and their links to records. */
export function filesModule(): Module {
  return { name: 'files', models: [attachedFileModel, attachedFileRelationModel] };
}
export { attachedImage, storedFilePath } from './file-storage.ts';
