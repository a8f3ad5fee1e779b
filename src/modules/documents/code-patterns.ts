/**
 * Document code patterns (facturascripts-model.md 3.8, Core/Lib/CodePatterns.php): `{EJE}`,
 * `{EJE2}`, `{SERIE}`, `{0SERIE}`, `{NUM}`, `{0NUM}`, `{ANYO}`, `{ANYO2}`, `{MES}`, `{DIA}`,
 * `{FECHA}`, `{HORA}`, `{FECHAHORA}`, `{NOMBREMES}`, and an optional `|M`, `|m`, `|P` or `|T`
 * suffix changing the case of the result.
 */
export interface PatternValues {
  codejercicio: string;
  codserie: string;
  numero: number;
  longnumero: number;
  /** `YYYY-MM-DD` */
  fecha: string;
  /** `HH:MM:SS` */
  hora: string;
  /** The number's text for `{NUM}` and `{0NUM}`, when it is not `numero`'s own (late-number.ts: placeholders). */
  numberText?: { plain: string; padded: string };
}

const MONTHS = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];

export function expandPattern(pattern: string, values: PatternValues): string {
  const [body, suffix] = pattern.split('|') as [string, string | undefined];
  const [year, month, day] = values.fecha.split('-') as [string, string, string];
  const dmy = `${day}-${month}-${year}`;
  const tokens: Record<string, string> = {
    EJE: values.codejercicio,
    EJE2: values.codejercicio.slice(-2),
    SERIE: values.codserie,
    '0SERIE': values.codserie.padStart(2, '0'),
    NUM: values.numberText?.plain ?? String(values.numero),
    '0NUM': values.numberText?.padded ?? String(values.numero).padStart(values.longnumero, '0'),
    ANYO: year,
    ANYO2: year.slice(-2),
    MES: month,
    DIA: day,
    FECHA: dmy,
    HORA: values.hora,
    FECHAHORA: `${dmy} ${values.hora}`,
    NOMBREMES: MONTHS[Number(month) - 1] ?? '',
  };
  const code = body.replace(/\{([0-9A-Z]+)\}/g, (whole, name: string) => tokens[name] ?? whole);
  switch (suffix) {
    case 'M':
      return code.toUpperCase();
    case 'm':
      return code.toLowerCase();
    case 'P':
      return code.charAt(0).toUpperCase() + code.slice(1);
    case 'T':
      return code.replace(/\b\p{L}/gu, (letter) => letter.toUpperCase());
    default:
      return code;
  }
}
