import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { extractText, getDocumentProxy, renderPageAsImage } from 'unpdf';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';
import type { TestApp } from './test-app.ts';

/** Reading an exported invoice as its reader would: its text, and its first page's QR codes decoded from pixels. */
prepareZXingModule({
  // The decoder's WebAssembly from the package itself, never from a CDN.
  overrides: { wasmBinary: fs.readFileSync(path.resolve(import.meta.dirname, '../../node_modules/zxing-wasm/dist/reader/zxing_reader.wasm')).buffer as ArrayBuffer },
  fireImmediately: true,
});

/** Pixels per PDF point of the rendering. */
const SCALE = 4;
const MM_PER_POINT = 25.4 / 72;

export async function exported(t: TestApp, id: number, type: string): Promise<Buffer> {
  const answer = await t.request({ method: 'GET', url: `/api/3/exportarFacturaCliente/${id}?type=${type}` });
  assert.equal(answer.statusCode, 200, answer.body);
  return answer.rawPayload;
}

/** The QR codes of a PDF's first page, with their side (mm) and their top (mm from the page's top). */
export async function qrCodesOf(pdf: Buffer): Promise<Array<{ text: string; ecLevel: string; sideMm: number; topMm: number }>> {
  const png = await renderPageAsImage(new Uint8Array(pdf), 1, { canvasImport: () => import('@napi-rs/canvas'), scale: SCALE });
  const image = await loadImage(Buffer.from(png));
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const found = await readBarcodes(context.getImageData(0, 0, image.width, image.height) as unknown as Parameters<typeof readBarcodes>[0], { formats: ['QRCode'] });
  return found.map((code) => ({
    text: code.text,
    ecLevel: code.ecLevel,
    sideMm: ((code.position.topRight.x - code.position.topLeft.x) / SCALE) * MM_PER_POINT,
    topMm: (code.position.topLeft.y / SCALE) * MM_PER_POINT,
  }));
}

export async function pdfText(pdf: Buffer): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true });
  return String(text);
}

