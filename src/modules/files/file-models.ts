import { defineModel } from '../../models/define-model.ts';
import { currentTime, f, now, today } from '../../models/fields.ts';

/**
 * Uploaded files (`attached_files`). Written only through uploads (`uploadFiles`, multipart
 * `attachedfiles`): the service sets `path`, `mimetype` and `size` from the bytes it stored.
 */
export const attachedFileModel = defineModel({
  name: 'AttachedFile',
  table: 'attached_files',
  // The reference serves them through its ApiAttachedFiles controller, by that name only.
  resource: 'attachedfiles',
  alias: 'attachedfiles',
  fields: {
    date: f.date({ notNull: true, initial: today }),
    filename: f.string(100, { notNull: true }),
    hour: f.time({ initial: currentTime }),
    idfile: f.serial({ readOnly: true }),
    mimetype: f.string(100, { readOnly: true }),
    path: f.string(200, { notNull: true, readOnly: true }),
    size: f.integer({ notNull: true, readOnly: true }),
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

/**
 * The bytes of stored files when `FILES_STORAGE=database`: each file (or thumbnail) by its path,
 * in parts of at most `FILE_PART_BYTES`, so that no statement carries a whole large file.
 */
export const fileContentModel = defineModel({
  name: 'FileContent',
  table: 'file_contents',
  internal: true,
  fields: {
    data: f.binary({ notNull: true }),
    id: f.serial(),
    part: f.integer({ notNull: true }),
    path: f.string(255, { notNull: true }),
  },
  unique: [['path', 'part']],
});

/** Secrets of the service kept in the database (the download links' signing key), never shown. */
export const serviceSecretModel = defineModel({
  name: 'ServiceSecret',
  table: 'service_secrets',
  internal: true,
  fields: {
    name: f.string(50, { primary: true }),
    value: f.string(200, { notNull: true }),
  },
});
