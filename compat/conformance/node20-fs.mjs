// node:fs with the globSync that Node 20 lacks (see node20.mjs).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;

export function globSync(pattern) {
    throw new Error(`fs.globSync(${JSON.stringify(pattern)}) needs Node 22 or newer`);
}
