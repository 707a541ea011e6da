// The conformance suite (0.1.16) imports fs.globSync, which Node added in 22;
// this machine's Node is 20. Under Node 20 this file, loaded with
// `node --import ./node20.mjs`, hands the suite an fs module that has a
// globSync, which fails saying so if it is ever called: the server scenarios
// run here never call it (only the suite's tier check does). On Node 22 it
// does nothing.
import { register } from 'node:module';
import * as fs from 'node:fs';

if (!('globSync' in fs)) {
    register('./node20-hooks.mjs', import.meta.url);
}
