/**
 * The Content-Disposition of a download (RFC 6266), for the dashboard's downloads (GPX, TCX, GeoJSON,
 * CSV: pages/dashboard/downloads.ts) and the original files (original-download.ts) alike.
 */

/**
 * A file name for a download: the asset's name with anything but letters, digits, dashes and
 * underscores made a dash, at most 80 characters, "ride-<id>" when nothing is left.
 */
function downloadBaseName(name: string, fallback: string): string {
  const cleaned = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return cleaned === '' ? fallback : cleaned;
}

/**
 * A Content-Disposition that saves as `name` + `extension` (RFC 6266/8187: the name as typed, for
 * browsers that read filename*; an ASCII one, `fallback` when nothing of it is ASCII, for the rest).
 */
export function attachment(name: string, fallback: string, extension: string): string {
  const base = downloadBaseName(name, fallback);
  const utf8Name = encodeURIComponent(`${name.trim() === '' ? base : name.trim()}${extension}`).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${base}${extension}"; filename*=UTF-8''${utf8Name}`;
}
