import type { FitMessage } from './decoder.js';
import { typeValueName } from './profile.js';

/**
 * Human names for FIT devices ("Garmin Edge 500", "Hammerhead Karoo 2"), built from the profile's
 * manufacturer and product names (or the product_name string the file carries).
 */

/** Brand spellings the profile's identifiers cannot express. */
const MANUFACTURER_NAMES: Readonly<Record<string, string>> = {
  wahooFitness: 'Wahoo',
  stagesCycling: 'Stages',
  sigmasport: 'SIGMA SPORT',
  coros: 'COROS',
  tomtom: 'TomTom',
  osynce: 'o-synce',
  srm: 'SRM',
  peaksware: 'TrainingPeaks',
  sarisCyclingGroup: 'Saris',
  dynastream: 'Dynastream',
  dynastreamOem: 'Dynastream',
};

/** Garmin product prefixes that are marketed under a longer name. */
const PRODUCT_WORDS: Readonly<Record<string, string>> = {
  fr: 'Forerunner',
  vivoactive: 'Vivoactive',
  edge: 'Edge',
  fenix: 'Fenix',
  mtb: 'MTB',
  hrm: 'HRM',
};

/** Manufacturers whose `product` numbers are Garmin product numbers (FIT profile, garmin_product). */
const GARMIN_PRODUCT_MANUFACTURERS = new Set(['garmin', 'dynastream', 'dynastreamOem', 'tacx']);

export function deviceName(message: FitMessage | undefined): string | null {
  if (message === undefined) return null;
  const manufacturerId = numberField(message, 'manufacturer');
  const manufacturerKey = typeValueName('manufacturer', manufacturerId);
  const manufacturer =
    manufacturerKey === null ? null : (MANUFACTURER_NAMES[manufacturerKey] ?? words(manufacturerKey));
  const productName = message['productName'];
  let product: string | null = typeof productName === 'string' && productName !== '' ? productName : null;
  if (product === null && manufacturerKey !== null && GARMIN_PRODUCT_MANUFACTURERS.has(manufacturerKey)) {
    const key = typeValueName('garminProduct', numberField(message, 'product'));
    product = key === null ? null : words(key);
  }
  if (manufacturer === null) return product;
  if (product === null) return manufacturer;
  // "COROS PACE 2" already names its maker.
  if (product.toLowerCase().startsWith(manufacturer.toLowerCase())) return product;
  return `${manufacturer} ${product}`;
}

/** `edge1030Plus` → "Edge 1030 Plus", `fr255` → "Forerunner 255", `wahooFitness` → "Wahoo Fitness". */
function words(identifier: string): string {
  return identifier
    .replace(/([a-z])([A-Z0-9])/g, '$1 $2')
    .replace(/([0-9])([A-Za-z])/g, '$1 $2')
    .split(' ')
    .map((word) => PRODUCT_WORDS[word.toLowerCase()] ?? word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

export function numberField(message: FitMessage | undefined, name: string): number | undefined {
  const value = message?.[name];
  if (typeof value === 'number') return value;
  if (Array.isArray(value) && typeof value[0] === 'number' && !Number.isNaN(value[0])) return value[0];
  return undefined;
}

export function stringField(message: FitMessage | undefined, name: string): string | null {
  const value = message?.[name];
  return typeof value === 'string' && value !== '' ? value : null;
}
