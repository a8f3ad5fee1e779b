/**
 * `npm run seed:large -- --customers 1000000 --invoices 1000000 [--years 5]`: adds large books to
 * the installation of DATABASE_URL (as `npm start` finds it: .env, then the environment), for
 * measuring and trying the service at scale. See bench/large-data.ts for what it writes.
 */
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { loadProcessConfig } from '../src/config.ts';
import { addLargeBooks, databaseSizeMib } from '../bench/large-data.ts';

const { values } = parseArgs({ options: { customers: { type: 'string', default: '100000' }, invoices: { type: 'string', default: '100000' }, years: { type: 'string', default: '5' } } });
const [customers, invoices, years] = [values.customers, values.invoices, values.years].map(Number) as [number, number, number];
if (![customers, invoices, years].every((n) => Number.isInteger(n) && n >= 1) || customers > 99_999_999) {
  console.error('usage: npm run seed:large -- --customers N --invoices N [--years Y] (whole numbers from 1)');
  process.exit(2);
}
const config = loadProcessConfig();
const app = await createApp({ config: { ...config, logLevel: 'warn' } });
try {
  let shown = 0;
  const report = await addLargeBooks(app, {
    customers,
    invoices,
    years,
    progress: (written, total) => {
      const percent = Math.floor((written / total) * 20) * 5;
      if (percent > shown) console.log(`${(shown = percent)} % (${written} of ${total} customers and invoices)`);
    },
  });
  console.log(`${report.customers} customers, ${report.invoices} invoices with ${report.lines} lines in ${report.seconds.toFixed(1)} s; database ${await databaseSizeMib(app)} MiB`);
} finally {
  await app.close();
}
