const times = new Map<string, number>();
let on = false;
const raw = (await import('better-sqlite3')).default;
const orig = raw.prototype.prepare;
raw.prototype.prepare = function (sqlText: string) {
  const st = orig.call(this, sqlText);
  for (const m of ['all', 'run', 'get']) {
    const f = (st as any)[m]?.bind(st);
    if (!f) continue;
    (st as any)[m] = (...a: any[]) => { const s = performance.now(); try { return f(...a); } finally { if (on) { const k = sqlText.replace(/\s+/g, ' ').slice(0, 100); times.set(k, (times.get(k) ?? 0) + performance.now() - s); } } };
  }
  return st;
};
const { startTestApp } = await import('./test/helpers/test-app.ts');
const t = await startTestApp('sqlite');
await t.call('POST', '/api/3/cliente', { codcliente: 'Q', nombre: 'Q' });
for (let i = 1; i <= 5; i++) await t.call('POST', '/api/3/producto', { referencia: `P${i}`, precio: 10, ventasinstock: true });
const body = { codcliente: 'Q', lineas: Array.from({ length: 5 }, (_, i) => ({ referencia: `P${i + 1}`, cantidad: 1 })) };
for (let i = 0; i < Number(process.env.N ?? 3000); i++) await t.call('POST', '/api/3/crearFacturaCliente', body);
on = true;
const s = performance.now();
for (let i = 0; i < 50; i++) await t.call('POST', '/api/3/crearFacturaCliente', body);
console.log('per invoice ms', (performance.now() - s) / 50);
let sum = 0; for (const v of times.values()) sum += v; console.log('sqlite ms per invoice', sum / 50);
for (const [k, v] of [...times].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log((v / 50).toFixed(3), k);
await t.close();
