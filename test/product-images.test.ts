import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import sharp from 'sharp';
import { enabledEngines } from './helpers/engines.ts';
import { eventually } from './helpers/eventually.ts';
import { handmadePng } from './helpers/png.ts';
import { forEachEngine, multipart } from './helpers/test-app.ts';

/**
 * Product images (`productoimagen`, alias `productoimagenes`; reference section 10): an uploaded
 * image linked to a product or one of its variants, shown with its links and its thumbnails,
 * which `width`/`height` make once with sharp and which go with the image, its file or its product.
 */

/** A solid PNG, JPEG, GIF or WebP of that size, made by sharp. */
function image(width: number, height: number, format: 'png' | 'jpeg' | 'gif' | 'webp' = 'png'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } }).toFormat(format).toBuffer();
}

/** A PNG whose header claims `width` x `height` with almost no pixel data: a decompression bomb's shape. */
function claimedPng(width: number, height: number): Buffer {
  return handmadePng(1, 1, { claimed: { width, height } });
}

const TYPES = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', txt: 'text/plain' } as const;

for (const filesStorage of ['local', 'database'] as const) {
  for (const engine of enabledEngines()) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `product-images-${filesStorage}-`));
    after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    forEachEngine(`product images (${filesStorage} storage)`, (t) => {
      const db = () => t().app.ctx.database.kysely;

      async function upload(name: string, content: Buffer | string, type: string): Promise<number> {
        const answer = await t().request({ method: 'POST', url: '/api/3/uploadFiles', ...multipart({}, [{ field: 'files[]', name, type, content }]) });
        assert.equal(answer.statusCode, 200, answer.body);
        return answer.json()[0].idfile;
      }
      let products = 0;
      async function product(): Promise<{ idproducto: number; referencia: string }> {
        const referencia = `IMG-${++products}`;
        const created = await t().call('POST', '/api/3/producto', { referencia, descripcion: `Product ${products}` });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        return created.body;
      }
      async function productImage(body: Record<string, unknown>): Promise<any> {
        const created = await t().call('POST', '/api/3/productoimagenes', body);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        return created.body;
      }
      const get = (id: number, query = '') => t().call('GET', `/api/3/productoimagenes/${id}${query}`);
      const download = (link: string) => t().request({ method: 'GET', url: `/${link}`, key: null });
      /** Bytes removed at a commit are unlinked just after it (local storage): allow that moment. */
      async function gone(link: string): Promise<void> {
        await eventually(async () => assert.equal((await download(link)).statusCode, 404, `${link} still served`), 10_000);
      }
      async function storedThumbnails(): Promise<string[]> {
        if (filesStorage === 'database') {
          const rows = await db().selectFrom('file_contents').select('path').distinct().where('path', 'like', 'MyFiles/Tmp/Thumbnails/%').execute();
          return rows.map((row) => String(row.path)).sort();
        }
        const dir = path.join(dataDir, 'MyFiles', 'Tmp', 'Thumbnails');
        return fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => !name.endsWith('.tmp')).map((name) => `MyFiles/Tmp/Thumbnails/${name}`).sort() : [];
      }
      const pathOf = (link: string) => decodeURIComponent(link.slice(0, link.indexOf('?')));

      it('serves the resource as productoimagen and productoimagenes, with the reference fields', async () => {
        const schema = await t().call('GET', '/api/3/productoimagenes/schema');
        assert.equal(schema.status, 200);
        assert.deepEqual(Object.keys(schema.body), ['id', 'idfile', 'idproducto', 'orden', 'referencia']);
        assert.equal((await t().call('GET', '/api/3/productoimagen')).status, 200);
        const root = JSON.stringify((await t().call('GET', '/api/3/')).body);
        assert.ok(root.includes('"productoimagen"'));
        assert.ok(!root.includes('productimagethumbnail'), 'thumbnails are the service\'s own table');
      });

      it('links an uploaded image to a product and shows its links; no thumbnails until asked', async () => {
        const idfile = await upload('Foto Producto.png', await image(400, 200), TYPES.png);
        const { idproducto } = await product();
        const created = await productImage({ idfile, idproducto, orden: 1 });
        const { download: link, 'download-permanent': permanent, ...record } = created;
        assert.deepEqual(record, { id: created.id, idfile, idproducto, orden: 1, referencia: null, thumbnails: [] });
        assert.equal(pathOf(link), pathOf(permanent));
        const file = (await t().call('GET', `/api/3/attachedfiles/${idfile}`)).body;
        assert.equal(pathOf(created.download), file.path);
        const bytes = await download(created['download-permanent']);
        assert.equal(bytes.statusCode, 200);
        assert.equal(bytes.headers['content-type'], 'image/png');
        assert.deepEqual((await get(created.id)).body.thumbnails, []);
      });

      it('makes a thumbnail that fits width x height with the aspect kept, once, downloadable without a key', async () => {
        const idfile = await upload('wide.png', await image(400, 200), TYPES.png);
        const { idproducto } = await product();
        const { id } = await productImage({ idfile, idproducto });
        const first = await get(id, '?width=64&height=64');
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.equal(first.body.thumbnails.length, 1);
        const [thumbnail] = first.body.thumbnails;
        assert.deepEqual([thumbnail.width, thumbnail.height], [64, 32]);
        assert.match(pathOf(thumbnail.download), new RegExp(`^MyFiles/Tmp/Thumbnails/${idfile}_wide-i${id}-[0-9a-f]{10}_64x64\\.png$`));
        const fetched = await download(thumbnail.download);
        assert.equal(fetched.statusCode, 200);
        assert.equal(fetched.headers['content-type'], 'image/png');
        const metadata = await sharp(fetched.rawPayload).metadata();
        assert.deepEqual([metadata.format, metadata.width, metadata.height], ['png', 64, 32]);
        assert.equal((await download(thumbnail['download-permanent'])).statusCode, 200);

        // Again: the same thumbnail, not a second one; without a size, the ones made are listed.
        const again = await get(id, '?width=64&height=64');
        assert.deepEqual(again.body.thumbnails.map((row: any) => [row.width, row.height, row['download-permanent']]), [[64, 32, thumbnail['download-permanent']]]);
        assert.equal((await get(id)).body.thumbnails.length, 1);
        const rows = await db().selectFrom('product_image_thumbnails').selectAll().where('idimage', '=', id).execute();
        assert.equal(rows.length, 1);

        // One side given: the other is 100.
        const widthOnly = await get(id, '?width=80');
        assert.deepEqual(widthOnly.body.thumbnails.map((row: any) => [row.width, row.height]), [[64, 32], [80, 40]]);
        const heightOnly = await get(id, '?height=48');
        assert.deepEqual(heightOnly.body.thumbnails.map((row: any) => [row.width, row.height]), [[64, 32], [80, 40], [96, 48]]);
        // A box giving a size already made (100 x 32: 64 x 32) is listed once.
        assert.deepEqual((await get(id, '?height=20')).body.thumbnails.map((row: any) => [row.width, row.height]), [[64, 32], [80, 40], [96, 48]]);

        // The list shows them (and makes the asked size for each image it lists).
        const list = await t().call('GET', `/api/3/productoimagenes?filter[idproducto]=${idproducto}&width=64&height=64`);
        assert.equal(list.status, 200);
        assert.equal(list.body.length, 1);
        assert.deepEqual(list.body[0].thumbnails.map((row: any) => [row.width, row.height]), [[64, 32], [80, 40], [96, 48]]);
        assert.equal(list.headers['x-total-count'], '1');
      });

      it('clamps each side to 32..1024 and never enlarges', async () => {
        const idfile = await upload('large.png', await image(2400, 1200), TYPES.png);
        const { idproducto } = await product();
        const { id } = await productImage({ idfile, idproducto });
        const large = await get(id, '?width=5000&height=5000');
        assert.deepEqual(large.body.thumbnails.map((row: any) => [row.width, row.height]), [[1024, 512]]);
        assert.match(pathOf(large.body.thumbnails[0].download), /_1024x1024\.png$/);
        const small = await get(id, '?width=1&height=-7');
        assert.deepEqual(small.body.thumbnails.map((row: any) => [row.width, row.height]), [[32, 16], [1024, 512]]);
        assert.match(pathOf(small.body.thumbnails[0].download), /_32x32\.png$/);
        const meta = await sharp((await download(small.body.thumbnails[0].download)).rawPayload).metadata();
        assert.deepEqual([meta.width, meta.height], [32, 16]);

        const tiny = await productImage({ idfile: await upload('tiny.png', await image(20, 10), TYPES.png), idproducto });
        const kept = await get(tiny.id, '?width=500&height=500');
        assert.deepEqual(kept.body.thumbnails.map((row: any) => [row.width, row.height]), [[20, 10]], 'never enlarged');
      });

      it('refuses a size that is not a whole number: 400 invalid-thumbnail-size', async () => {
        const { id } = await productImage({ idfile: await upload('sizes.png', await image(40, 40), TYPES.png), idproducto: (await product()).idproducto });
        for (const [query, parameter] of [['?width=abc', 'width'], ['?height=1.5', 'height'], ['?width=', 'width'], ['?width=64&height=1e3', 'height'], ['?width=1&width=2', 'width']]) {
          const answer = await get(id, query);
          assert.equal(answer.status, 400, query);
          assert.deepEqual([answer.body.message, answer.body.parameter], ['invalid-thumbnail-size', parameter], query);
        }
        const list = await t().call('GET', '/api/3/productoimagenes?width=big');
        assert.deepEqual([list.status, list.body.message], [400, 'invalid-thumbnail-size']);
        assert.deepEqual((await get(id)).body.thumbnails, []);
      });

      it('keeps the format of PNG, JPEG and WebP images and makes PNGs of GIFs', async () => {
        const { idproducto } = await product();
        for (const [format, ext, output] of [['jpeg', 'jpg', 'jpeg'], ['webp', 'webp', 'webp'], ['gif', 'png', 'png']] as const) {
          const { id } = await productImage({ idfile: await upload(`picture.${ext === 'jpg' ? 'jpg' : format}`, await image(300, 600, format), TYPES[format]), idproducto });
          const answer = await get(id, '?width=50&height=50');
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          const [thumbnail] = answer.body.thumbnails;
          assert.deepEqual([thumbnail.width, thumbnail.height], [25, 50], format);
          assert.match(pathOf(thumbnail.download), new RegExp(`_50x50\\.${ext}$`));
          const fetched = await download(thumbnail.download);
          assert.equal(fetched.statusCode, 200);
          assert.equal((await sharp(fetched.rawPayload).metadata()).format, output);
        }
      });

      it('refuses a file that is not an image: 422 not-an-image, on create and on update', async () => {
        const { idproducto } = await product();
        const text = await upload('notes.txt', 'just some words', TYPES.txt);
        const refused = await t().call('POST', '/api/3/productoimagenes', { idfile: text, idproducto });
        assert.equal(refused.status, 422);
        assert.deepEqual([refused.body.message, refused.body.fields], ['validation-failed', { idfile: 'not-an-image' }]);
        const { id } = await productImage({ idfile: await upload('fine.png', await image(10, 10), TYPES.png), idproducto });
        const update = await t().call('PATCH', `/api/3/productoimagenes/${id}`, { idfile: text });
        assert.deepEqual([update.status, update.body.fields], [422, { idfile: 'not-an-image' }]);
        const missing = await t().call('POST', '/api/3/productoimagenes', { idfile: 999_999, idproducto });
        assert.deepEqual([missing.status, missing.body.message], [422, 'invalid-reference']);
      });

      it('answers 422 for an image sharp cannot make a thumbnail of (broken, or over 40 megapixels), never 500', async () => {
        const { idproducto } = await product();
        const bomb = await productImage({ idfile: await upload('bomb.png', claimedPng(10_000, 10_000), TYPES.png), idproducto });
        const tooLarge = await get(bomb.id, '?width=64&height=64');
        assert.deepEqual([tooLarge.status, tooLarge.body.fields], [422, { idfile: 'image-too-large' }]);
        const broken = await productImage({ idfile: await upload('broken.png', claimedPng(300, 300), TYPES.png), idproducto });
        const notImage = await get(broken.id, '?width=64&height=64');
        assert.deepEqual([notImage.status, notImage.body.fields], [422, { idfile: 'not-an-image' }]);
        assert.deepEqual((await get(broken.id)).body.thumbnails, [], 'nothing recorded');
      });

      it('takes a variant of the product as referencia, and no other', async () => {
        const own = await product();
        const other = await product();
        const idfile = await upload('variant.png', await image(10, 10), TYPES.png);
        const variant = await t().call('POST', '/api/3/variante', { idproducto: own.idproducto, referencia: `${own.referencia}-RED` });
        assert.equal(variant.status, 201);
        const red = await productImage({ idfile, idproducto: own.idproducto, referencia: `${own.referencia}-RED` });
        assert.equal(red.referencia, `${own.referencia}-RED`);
        const foreign = await t().call('POST', '/api/3/productoimagenes', { idfile, idproducto: own.idproducto, referencia: other.referencia });
        assert.deepEqual([foreign.status, foreign.body.fields], [422, { referencia: 'not-a-variant-of-the-product' }]);
        const unknown = await t().call('POST', '/api/3/productoimagenes', { idfile, idproducto: own.idproducto, referencia: 'NO-SUCH-REF' });
        assert.deepEqual([unknown.status, unknown.body.fields], [422, { referencia: 'not-a-variant-of-the-product' }]);
        const moved = await productImage({ idfile, idproducto: own.idproducto });
        const move = await t().call('PATCH', `/api/3/productoimagenes/${moved.id}`, { idproducto: other.idproducto, referencia: `${own.referencia}-RED` });
        assert.deepEqual([move.status, move.body.fields], [422, { referencia: 'not-a-variant-of-the-product' }]);
        const missingProduct = await t().call('POST', '/api/3/productoimagenes', { idfile, idproducto: 999_999 });
        assert.deepEqual([missingProduct.status, missingProduct.body.message], [422, 'invalid-reference']);

        // A renamed variant carries its new reference over; a deleted one leaves the image to the product.
        assert.equal((await t().call('PATCH', `/api/3/variante/${variant.body.idvariante}`, { referencia: `${own.referencia}-ROJO` })).status, 200);
        assert.equal((await get(red.id)).body.referencia, `${own.referencia}-ROJO`);
        assert.equal((await t().call('DELETE', `/api/3/variante/${variant.body.idvariante}`)).status, 200);
        const left = await get(red.id);
        assert.deepEqual([left.status, left.body.referencia, left.body.idproducto], [200, null, own.idproducto]);
      });

      it('shows new thumbnails once the file\'s bytes are replaced', async () => {
        const idfile = await upload('replaced.png', await image(400, 200), TYPES.png);
        const { id } = await productImage({ idfile, idproducto: (await product()).idproducto });
        const before = (await get(id, '?width=64&height=64')).body.thumbnails[0];
        const replaced = await t().request({
          method: 'PUT', url: `/api/3/attachedfiles/${idfile}`, ...multipart({}, [{ field: 'file', name: 'replaced.png', type: 'image/png', content: await image(100, 400) }]),
        });
        assert.equal(replaced.statusCode, 200, replaced.body);
        await gone(before.download);
        assert.deepEqual((await get(id)).body.thumbnails, [], 'the thumbnails of the old bytes are not shown');
        const after = await get(id, '?width=64&height=64');
        assert.deepEqual(after.body.thumbnails.map((row: any) => [row.width, row.height]), [[16, 64]]);
        assert.notEqual(pathOf(after.body.thumbnails[0].download), pathOf(before.download));
        assert.equal((await download(after.body.thumbnails[0].download)).statusCode, 200);
        assert.equal((await db().selectFrom('product_image_thumbnails').select('id').where('idimage', '=', id).execute()).length, 1);
      });

      it('deletes an image with its thumbnails, not its file', async () => {
        const idfile = await upload('deleted.png', await image(400, 200), TYPES.png);
        const { idproducto } = await product();
        const { id } = await productImage({ idfile, idproducto });
        const kept = await productImage({ idfile, idproducto });
        const thumbnail = (await get(id, '?width=64&height=64')).body.thumbnails[0];
        const other = (await get(kept.id, '?width=64&height=64')).body.thumbnails[0];
        assert.notEqual(pathOf(thumbnail.download), pathOf(other.download), 'two images of one file have thumbnails of their own');
        const deleted = await t().call('DELETE', `/api/3/productoimagenes/${id}`);
        assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
        await gone(thumbnail.download);
        assert.equal((await get(id)).status, 404);
        assert.equal((await download(other.download)).statusCode, 200, 'the other image keeps its thumbnail');
        assert.equal((await t().call('GET', `/api/3/attachedfiles/${idfile}`)).status, 200, 'the file stays');
        assert.deepEqual(await db().selectFrom('product_image_thumbnails').select('id').where('idimage', '=', id).execute(), []);
        assert.ok(!(await storedThumbnails()).includes(pathOf(thumbnail.download)));
      });

      it('goes with its attached file, thumbnails included', async () => {
        const idfile = await upload('file-goes.png', await image(400, 200), TYPES.png);
        const { id } = await productImage({ idfile, idproducto: (await product()).idproducto });
        const thumbnail = (await get(id, '?width=64&height=64')).body.thumbnails[0];
        assert.equal((await t().call('DELETE', `/api/3/attachedfiles/${idfile}`)).status, 200);
        assert.equal((await get(id)).status, 404);
        await gone(thumbnail.download);
        assert.deepEqual(await db().selectFrom('product_image_thumbnails').select('id').where('idimage', '=', id).execute(), []);
        assert.ok(!(await storedThumbnails()).some((stored) => stored.startsWith(`MyFiles/Tmp/Thumbnails/${idfile}_`)));
      });

      it('goes with its product, thumbnails included; the file stays', async () => {
        const idfile = await upload('product-goes.png', await image(400, 200), TYPES.png);
        const { idproducto } = await product();
        const images = [await productImage({ idfile, idproducto }), await productImage({ idfile, idproducto, orden: 2 })];
        const thumbnails = [];
        for (const { id } of images) {
          await get(id, '?width=64&height=64');
          thumbnails.push(...(await get(id, '?width=40')).body.thumbnails);
        }
        assert.equal(thumbnails.length, 4);
        const deleted = await t().call('DELETE', `/api/3/producto/${idproducto}`);
        assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
        for (const { id } of images) assert.equal((await get(id)).status, 404);
        for (const thumbnail of thumbnails) await gone(thumbnail.download);
        assert.equal((await t().call('GET', `/api/3/attachedfiles/${idfile}`)).status, 200);
        assert.ok(!(await storedThumbnails()).some((stored) => stored.startsWith(`MyFiles/Tmp/Thumbnails/${idfile}_`)));
      });
    }, { engines: [engine], config: { dataDir, filesStorage } });
  }
}
