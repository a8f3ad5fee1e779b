import { defineModel } from '../../models/define-model.ts';
import { currentTime, f, now, today } from '../../models/fields.ts';

/** Uploaded files (`attached_files`); the upload endpoint fills path, mimetype and size. */
export const attachedFileModel = defineModel({
  name: 'AttachedFile',
  table: 'attached_files',
  fields: {
    date: f.date({ notNull: true, initial: today }),
    filename: f.string(100, { notNull: true }),
    hour: f.time({ initial: currentTime }),
    idfile: f.serial(),
    mimetype: f.string(100),
    path: f.string(200, { notNull: true }),
    size: f.integer({ notNull: true }),
  },
  hooks: {
    beforeSave({ values }) {
      if (typeof values.filename === 'string') values.filename = values.filename.toLowerCase();
    },
  },
});

/** Links of a file to any record (`attached_files_rel`): class name plus integer key or code. */
export const attachedFileRelationModel = defineModel({
  name: 'AttachedFileRelation',
  table: 'attached_files_rel',
  fields: {
    creationdate: f.timestamp({ initial: now }),
    id: f.serial(),
    idfile: f.integer({ notNull: true, references: f.ref('attached_files', 'idfile', 'CASCADE') }),
    model: f.string(30, { notNull: true }),
    modelid: f.integer({ notNull: true }),
    modelcode: f.string(40),
    nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
    observations: f.text(),
    orden: f.integer(),
  },
});
