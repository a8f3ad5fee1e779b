/**
 * After a burst of creations: the sales invoices' numbers in each series and year must be 1..n,
 * each once (gap-free numbering). Read through the API by following the pages' `Link: rel="next"`
 * (cursors: as cheap on a million invoices as on a thousand), optionally only those matching
 * `filter` (e.g. `filter[codserie]=A`). Returns the problem, or undefined when there is none.
 */
export async function checkInvoiceNumbers(port: number, key: string, filter = ''): Promise<string | undefined> {
  const numbers = new Map<string, number[]>();
  let next: string | undefined = `/api/3/facturacliente?limit=1000&sort[idfactura]=ASC${filter && `&${filter}`}`;
  while (next) {
    const answer = await fetch(`http://127.0.0.1:${port}${next}`, { headers: { 'x-auth-token': key } });
    if (!answer.ok) return `listing invoices: ${answer.status}`;
    const page = (await answer.json()) as Array<{ codserie: string; codejercicio: string; numero: string }>;
    for (const invoice of page) {
      const series = `${invoice.codserie}/${invoice.codejercicio}`;
      if (!numbers.has(series)) numbers.set(series, []);
      numbers.get(series)!.push(Number(invoice.numero));
    }
    next = /^<([^>]+)>; rel="next"$/.exec(answer.headers.get('link') ?? '')?.[1];
  }
  for (const [series, list] of numbers) {
    const sorted = [...list].sort((a, b) => a - b);
    const wrong = sorted.findIndex((value, index) => value !== index + 1);
    if (wrong >= 0) return `series ${series}: ${sorted.length} invoices, number ${sorted[wrong]} where ${wrong + 1} was due`;
  }
  return undefined;
}
