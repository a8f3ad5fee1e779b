import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';

/** Line-level links parent document line -> child document line with the quantity carried over (no FKs: `model*` are class names). */
export const docTransformationModel = defineModel({
  name: 'DocTransformation',
  table: 'doctransformations',
  // Written by document generation only: a forged link could block deletes or change served quantities.
  readOnlyResource: true,
  fields: {
    cantidad: f.double(),
    id: f.serial(),
    iddoc1: f.integer({ notNull: true }),
    iddoc2: f.integer({ notNull: true }),
    idlinea1: f.integer({ notNull: true }),
    idlinea2: f.integer({ notNull: true }),
    model1: f.string(30, { notNull: true }),
    model2: f.string(30, { notNull: true }),
  },
  // A document's children (status generation, delete checks) and its parents (delete restores them).
  indexes: [['model1', 'iddoc1'], ['model2', 'iddoc2']],
});
