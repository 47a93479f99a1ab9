/**
 * Issue 35: the client's record types are generated from the server's OpenAPI document
 * (scripts/generate-client-types.ts). The committed file must be what the generator makes now, so a
 * schema changed without `npm run generate:client-types` fails here rather than letting the client
 * drift from what the server sends.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateClientTypes, GENERATED_FILE } from '../scripts/generate-client-types.js';

describe("the client's generated record types", () => {
  it('are what the server’s schemas generate now (run npm run generate:client-types)', async () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(await generateClientTypes());
  });
});
