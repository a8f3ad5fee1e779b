/**
 * Spanish tax identifiers (NIF): a DNI (8 digits and a letter), a NIE (X, Y or Z, 7 digits and a
 * letter), the NIF of a person without DNI (K, L or M, 7 digits and a letter) and an entity's NIF,
 * formerly CIF (a letter, 7 digits and a control digit or letter), each with its check character
 * (Orden EHA/451/2008; Real Decreto 1065/2007, art. 19-22). The AEAT checks the census; this checks
 * what can be checked offline, so that a record never carries an impossible NIF.
 */
const PERSON_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
const ENTITY_CONTROL_LETTERS = 'JABCDEFGHI';
/** Entities whose control character is always a letter, and always a digit. */
const ENTITY_LETTER_CONTROL = new Set(['N', 'P', 'Q', 'R', 'S', 'W']);
const ENTITY_DIGIT_CONTROL = new Set(['A', 'B', 'E', 'H']);

/** The identifier as it is written in a record: upper case, without spaces, dots, dashes or a country prefix `ES`. */
export function normalizeTaxId(raw: string): string {
  const id = raw.toUpperCase().replace(/[\s.\-_/]/g, '');
  return id.length === 11 && id.startsWith('ES') ? id.slice(2) : id;
}

function entityControl(digits: string): { digit: string; letter: string } {
  let sum = 0;
  for (let i = 0; i < 7; i++) {
    const n = Number(digits[i]);
    if (i % 2 === 1) sum += n;
    else {
      const doubled = n * 2;
      sum += Math.floor(doubled / 10) + (doubled % 10);
    }
  }
  const control = (10 - (sum % 10)) % 10;
  return { digit: String(control), letter: ENTITY_CONTROL_LETTERS[control]! };
}

/** The normalised NIF when `raw` is a valid Spanish tax id, else undefined. */
export function spanishTaxId(raw: string | null | undefined): string | undefined {
  if (!raw) return undefined;
  const id = normalizeTaxId(raw);
  if (/^\d{8}[A-Z]$/.test(id)) return PERSON_LETTERS[Number(id.slice(0, 8)) % 23] === id[8] ? id : undefined;
  if (/^[XYZ]\d{7}[A-Z]$/.test(id)) {
    const number = Number(`${'XYZ'.indexOf(id[0]!)}${id.slice(1, 8)}`);
    return PERSON_LETTERS[number % 23] === id[8] ? id : undefined;
  }
  if (/^[KLM]\d{7}[A-Z]$/.test(id)) return PERSON_LETTERS[Number(id.slice(1, 8)) % 23] === id[8] ? id : undefined;
  const entity = /^([ABCDEFGHJNPQRSUVW])(\d{7})([0-9A-J])$/.exec(id);
  if (!entity) return undefined;
  const [, kind, digits, given] = entity as unknown as [string, string, string, string];
  const { digit, letter } = entityControl(digits);
  if (ENTITY_LETTER_CONTROL.has(kind)) return given === letter ? id : undefined;
  if (ENTITY_DIGIT_CONTROL.has(kind)) return given === digit ? id : undefined;
  return given === digit || given === letter ? id : undefined;
}
