import { validationError } from '../../../errors.ts';
import { defineModel } from '../../../models/define-model.ts';
import { f } from '../../../models/fields.ts';
import { current } from '../../../models/record-rules.ts';
import { variantReferences } from '../../catalogue/index.ts';

/** The types a product image may have (as sniffed at upload and kept in `attached_files.mimetype`). */
export const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * Images of products (`productos_imagenes`, the reference's ProductoImagen): an attached file that
 * is an image, shown for a product or for one of its variants (`referencia`), in `orden`. They go
 * with their file and with their product (foreign keys); a deleted variant leaves the image to its
 * product. Their records show the image's links and its thumbnails (product-image-resource.ts).
 */
export const productImageModel = defineModel({
  name: 'ProductoImagen',
  table: 'productos_imagenes',
  // The reference's plural (productoimagenes) is the alias; the canonical name is `productoimagen`.
  fields: {
    id: f.serial(),
    idfile: f.integer({ notNull: true, references: f.ref('attached_files', 'idfile', 'CASCADE') }),
    idproducto: f.integer({ notNull: true, references: f.ref('productos', 'idproducto', 'CASCADE') }),
    orden: f.integer(),
    referencia: f.string(30, { references: f.ref('variantes', 'referencia', 'SET NULL') }),
  },
  hooks: {
    async beforeSave({ db, values, existing }) {
      if (values.referencia === '') values.referencia = null;
      const errors: Record<string, string> = {};
      if (values.idfile !== undefined && values.idfile !== null) {
        const file = await db.selectFrom('attached_files').select('mimetype').where('idfile', '=', values.idfile).executeTakeFirst();
        // A missing file is the foreign key's to report (invalid-reference).
        if (file && !IMAGE_TYPES.has(String(file.mimetype))) errors.idfile = 'not-an-image';
      }
      const image = current(values, existing);
      const touched = values.referencia !== undefined || values.idproducto !== undefined;
      if (touched && typeof image.referencia === 'string' && typeof image.idproducto === 'number') {
        if (!(await variantReferences(db, image.idproducto)).includes(image.referencia)) errors.referencia = 'not-a-variant-of-the-product';
      }
      if (Object.keys(errors).length) throw validationError(errors);
    },
  },
});

/**
 * The thumbnails made of a product image (`product_image_thumbnails`, the service's own): one per
 * requested box (`boxwidth` x `boxheight`, clamped), with the size it came out at (`width` x
 * `height`, the image's aspect kept), where its bytes are (`path`, under `MyFiles/Tmp/Thumbnails/`)
 * and the stored file it was made from (`source`: a thumbnail of replaced bytes is stale). Rows go
 * with the image (foreign key); their bytes are removed by whoever deletes the image, its product
 * or its file (product-image-resource.ts, attached-file-operations.ts).
 */
export const productImageThumbnailModel = defineModel({
  name: 'ProductImageThumbnail',
  table: 'product_image_thumbnails',
  internal: true,
  fields: {
    boxheight: f.integer({ notNull: true }),
    boxwidth: f.integer({ notNull: true }),
    height: f.integer({ notNull: true }),
    id: f.serial(),
    idimage: f.integer({ notNull: true, references: f.ref('productos_imagenes', 'id', 'CASCADE') }),
    path: f.string(255, { notNull: true }),
    source: f.string(200, { notNull: true }),
    width: f.integer({ notNull: true }),
  },
  unique: [['idimage', 'boxwidth', 'boxheight']],
});
