import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';
import { checkCode, checkFilled, codeOf, current, hasText, type Errors } from '../../models/record-rules.ts';

/** Attributes of product variants: size, colour ... (table `atributos`); an empty code gets the next number. */
export const atributoModel = defineModel({
  name: 'Atributo',
  table: 'atributos',
  fields: {
    codatributo: f.string(20, { primary: true, generatedCode: true }),
    nombre: f.string(100, { notNull: true }),
    num_selector: f.integer({ notNull: true, default: 0 }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codatributo', codeOf(20));
    checkFilled(errors, values, 'nombre');
    return errors;
  },
});

/**
 * Values of an attribute (table `atributos_valores`), the targets of `variantes.idatributovalor1..4`:
 * each belongs to an existing attribute (deleted with it) and is unique within it; `descripcion` is
 * the attribute's name and the value, kept by the service.
 */
export const atributoValorModel = defineModel({
  name: 'AtributoValor',
  table: 'atributos_valores',
  fields: {
    codatributo: f.string(20, { notNull: true, references: f.ref('atributos', 'codatributo', 'CASCADE') }),
    descripcion: f.string(200, { readOnly: true }),
    id: f.serial(),
    orden: f.integer({ initial: () => 100 }),
    valor: f.string(100, { notNull: true }),
  },
  unique: [['codatributo', 'valor']],
  validate(values) {
    const errors: Errors = {};
    checkFilled(errors, values, 'valor');
    return errors;
  },
  hooks: {
    async beforeSave({ db, values, existing }) {
      if (existing && values.codatributo === undefined && values.valor === undefined) return;
      const row = current(values, existing);
      const attribute = await db.selectFrom('atributos').select('nombre').where('codatributo', '=', String(row.codatributo)).executeTakeFirst();
      // An unknown attribute is reported by the foreign key.
      if (attribute) values.descripcion = [attribute.nombre, row.valor].filter(hasText).join(' ');
    },
  },
});
