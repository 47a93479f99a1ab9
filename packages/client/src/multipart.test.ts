import { describe, expect, it } from 'vitest';
import { rideUploadBody } from './multipart.js';

/** Reads a body back the way a server would, with the platform's own multipart parser. */
async function parse(body: Uint8Array, contentType: string) {
  return new Response(Uint8Array.from(body), { headers: { 'content-type': contentType } }).formData();
}

/** The field names in order (FormData.forEach: the checker's DOM library has no iterable FormData). */
function keysOf(form: FormData): string[] {
  const keys: string[] = [];
  form.forEach((_value, key) => keys.push(key));
  return keys;
}

describe('rideUploadBody', () => {
  it('carries the file under `file` with its name and exact bytes', async () => {
    const bytes = Uint8Array.from([0x0e, 0x10, 0x00, 0xff, 0x0d, 0x0a, 0x2d, 0x2d]);
    const { body, contentType } = await rideUploadBody({ bytes, filename: 'morning ride.fit' });
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    const form = await parse(body, contentType);
    const file = form.get('file');
    expect(file).toBeInstanceOf(File);
    expect((file as File).name).toBe('morning ride.fit');
    expect(new Uint8Array(await (file as File).arrayBuffer())).toEqual(bytes);
    expect(keysOf(form)).toEqual(['file']);
  });

  it('adds trip[name], trip[description] and trip[visibility] as the legacy numbers, before the file', async () => {
    for (const [visibility, number] of [
      ['public', '0'],
      ['private', '1'],
      ['friends_only', '2'],
    ] as const) {
      const { body, contentType } = await rideUploadBody({
        bytes: new Uint8Array([1]),
        filename: 'a.gpx',
        name: 'Ründfahrt "Aare"',
        description: 'line one\r\nline two',
        visibility,
      });
      const form = await parse(body, contentType);
      expect(keysOf(form)).toEqual(['trip[name]', 'trip[description]', 'trip[visibility]', 'file']);
      expect(form.get('trip[name]')).toBe('Ründfahrt "Aare"');
      expect(form.get('trip[description]')).toBe('line one\r\nline two');
      expect(form.get('trip[visibility]')).toBe(number);
    }
  });

  it('does not see later changes to the caller’s buffer', async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const built = rideUploadBody({ bytes, filename: 'a.fit' });
    bytes[0] = 9;
    const { body, contentType } = await built;
    const file = (await parse(body, contentType)).get('file') as File;
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
  });
});
