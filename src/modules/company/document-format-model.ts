import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';

/**
 * Print formats of documents (table `formatos_documentos`): the title, text and logo a PDF of a
 * document type, serie and company uses (`autoaplicar`: chosen without being asked for). Deleted
 * with their serie or company; the logo reference is cleared when its file is deleted.
 */
export const formatoDocumentoModel = defineModel({
  name: 'FormatoDocumento',
  table: 'formatos_documentos',
  fields: {
    autoaplicar: f.boolean({ default: true }),
    codserie: f.string(4, { references: f.ref('series', 'codserie', 'CASCADE') }),
    id: f.serial(),
    idempresa: f.integer({ references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    idlogo: f.integer({ references: f.ref('attached_files', 'idfile', 'SET NULL') }),
    nombre: f.string(30),
    texto: f.text(),
    tipodoc: f.string(30),
    titulo: f.string(30),
  },
});
