/**
 * Country names and codes. Names come from the ICU data in Node (Intl.DisplayNames, English), so every
 * source that spells a country differently ("USA", "Great Britain", "United States") lands on one name.
 * Intl only knows alpha-2 codes, hence the small alpha-3 table for the codes our sources use.
 */

const ALPHA3_TO_ALPHA2: Record<string, string> = {
  ARE: 'AE', ARG: 'AR', ATG: 'AG', AUS: 'AU', AUT: 'AT', BEL: 'BE', BGD: 'BD', BGR: 'BG', BHR: 'BH',
  BRA: 'BR', CAN: 'CA', CHE: 'CH', CHL: 'CL', CHN: 'CN', COL: 'CO', CZE: 'CZ', DEU: 'DE', DNK: 'DK',
  EGY: 'EG', ESP: 'ES', EST: 'EE', FIN: 'FI', FRA: 'FR', GBR: 'GB', GHA: 'GH', GRC: 'GR', HKG: 'HK',
  HUN: 'HU', IDN: 'ID', IND: 'IN', IRL: 'IE', ISR: 'IL', ITA: 'IT', JPN: 'JP', KEN: 'KE', KOR: 'KR',
  LAO: 'LA', LTU: 'LT', LUX: 'LU', LVA: 'LV', MEX: 'MX', MLT: 'MT', MYS: 'MY', NGA: 'NG', NLD: 'NL',
  NOR: 'NO', NZL: 'NZ', PAK: 'PK', PER: 'PE', PHL: 'PH', POL: 'PL', PRT: 'PT', ROU: 'RO', RUS: 'RU',
  SAU: 'SA', SGP: 'SG', SWE: 'SE', THA: 'TH', TUR: 'TR', TWN: 'TW', UKR: 'UA', UMI: 'UM', USA: 'US',
  VNM: 'VN', ZAF: 'ZA',
};

const ALPHA2_TO_ALPHA3 = new Map(Object.entries(ALPHA3_TO_ALPHA2).map(([a3, a2]) => [a2, a3]));

/** ICU's long names carry political qualifiers nobody types ("Hong Kong SAR China"). */
const NAME_OVERRIDES: Record<string, string> = { HK: 'Hong Kong', MO: 'Macao' };

/** Spellings seen in the sources that ICU does not know. */
const ALIASES: Record<string, string> = {
  usa: 'US',
  'united states of america': 'US',
  'united stats of america': 'US',
  us: 'US',
  uk: 'GB',
  'great britain': 'GB',
  england: 'GB',
  'the netherlands': 'NL',
  holland: 'NL',
  korea: 'KR',
  'republic of korea': 'KR',
  'czech republic': 'CZ',
  'hong kong sar china': 'HK',
  turkey: 'TR',
  myanmar: 'MM',
  burma: 'MM',
  'ivory coast': 'CI',
  macedonia: 'MK',
  swaziland: 'SZ',
};

/** Region codes ICU names that are not countries. */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'QO', 'UN', 'XA', 'XB', 'ZZ']);

const displayNames = new Intl.DisplayNames('en', { type: 'region', fallback: 'none' });

function alpha2Name(alpha2: string): string | undefined {
  return NAME_OVERRIDES[alpha2] ?? displayNames.of(alpha2);
}

let nameIndex: Map<string, string> | undefined;

/** Lower-cased English name → alpha-2, for every region ICU names (built once, on first use). */
function byName(): Map<string, string> {
  if (nameIndex) return nameIndex;
  nameIndex = new Map(Object.entries(ALIASES));
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const a of letters) {
    for (const b of letters) {
      const code = a + b;
      // Deprecated codes (UK, BU, ...) share their successor's name; only current country codes count.
      if (NOT_COUNTRIES.has(code) || Intl.getCanonicalLocales(`und-${code}`)[0] !== `und-${code}`) continue;
      const name = alpha2Name(code);
      if (name && !nameIndex.has(name.toLowerCase())) nameIndex.set(name.toLowerCase(), code);
    }
  }
  return nameIndex;
}

/** "USA" → "United States"; undefined for codes outside the table. */
export function countryNameFromAlpha3(alpha3: string): string | undefined {
  const alpha2 = ALPHA3_TO_ALPHA2[alpha3.trim().toUpperCase()];
  return alpha2 ? alpha2Name(alpha2) : undefined;
}

/** Any known spelling or alpha-2/alpha-3 code → the canonical English name; undefined when unknown. */
export function canonicalCountryName(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (/^[A-Za-z]{3}$/.test(trimmed)) {
    const fromCode = countryNameFromAlpha3(trimmed);
    if (fromCode) return fromCode;
  }
  const alpha2 = byName().get(trimmed.toLowerCase());
  return alpha2 ? alpha2Name(alpha2) : undefined;
}

/** "United States" → "USA" (the form locations.country_code holds); undefined when not in the table. */
export function alpha3FromCountryName(name: string): string | undefined {
  const alpha2 = byName().get(name.trim().toLowerCase());
  return alpha2 ? ALPHA2_TO_ALPHA3.get(alpha2) : undefined;
}
