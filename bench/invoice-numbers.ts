/**
 * After a burst of creations: the sales invoices' numbers in each series and year must be 1..n,
 * each once (gap-free numbering). Read through the API, a page at a time. Returns the problem, or
 * undefined when there is none.
 */
export async function checkInvoiceNumbers(port: number, key: string): Promise<string | undefined> {
  const numbers = new Map<string, number[]>();
  for (let offset = 0; ; offset += 1000) {
    const answer = await fetch(`http://127.0.0.1:${port}/api/3/facturacliente?limit=1000&offset=${offset}&sort[idfactura]=ASC`, { headers: { 'x-auth-token': key } });
    if (!answer.ok) return `listing invoices: ${answer.status}`;
    const page = (await answer.json()) as Array<{ codserie: string; codejercicio: string; numero: string }>;
    for (const invoice of page) {
      const series = `${invoice.codserie}/${invoice.codejercicio}`;
      numbers.set(series, [...(numbers.get(series) ?? []), Number(invoice.numero)]);
    }
    if (page.length < 1000) break;
  }
  for (const [series, list] of numbers) {
    const sorted = [...list].sort((a, b) => a - b);
    const wrong = sorted.findIndex((value, index) => value !== index + 1);
    if (wrong >= 0) return `series ${series}: ${sorted.length} invoices, number ${sorted[wrong]} where ${wrong + 1} was due`;
  }
  return undefined;
}
