// Checks the JSON one MCP Inspector CLI command printed (stdin) for the method it ran.
// Usage: node inspector-check.mjs <state.json> <method> [<uri>] < stdout-of-the-command
// state.json carries what earlier commands published, so a later read can look for it.
// Prints what it checked; exits 1 with the reason on a mismatch.

import fs from 'node:fs';

const [statePath, method, uri] = process.argv.slice(2);
const state = fs.existsSync(statePath) ? JSON.parse(fs.readFileSync(statePath, 'utf8')) : { facts: [] };
const raw = fs.readFileSync(0, 'utf8');

function fail(why) {
    console.log(`FAIL  ${method}${uri ? ' ' + uri : ''}: ${why}`);
    console.log(`      output: ${raw.length > 2000 ? raw.slice(0, 2000) + '...' : raw}`);
    process.exit(1);
}

let out;
try {
    out = JSON.parse(raw);
} catch (e) {
    fail(`output is not JSON: ${e.message}`);
}
if (out.error) fail(`error: ${JSON.stringify(out.error)}`);

let what;
switch (method) {
    case 'tools/list': {
        const tools = out.tools ?? [];
        if (!tools.length) fail('no tools');
        for (const t of tools) {
            if (!t.name || !t.description || !t.inputSchema) fail(`tool ${JSON.stringify(t.name)} lacks a name, description or inputSchema`);
        }
        if (!tools.some(t => t.name === 'publish_fact')) fail('publish_fact is not listed');
        what = `${tools.length} tools`;
        break;
    }
    case 'tools/call': {
        const text = (out.content ?? []).map(c => c.text ?? '').join('\n');
        if (out.isError) fail(`tool error: ${text}`);
        if (!out.structuredContent) fail('no structuredContent');
        if (!text) fail('no text content');
        const fact = out.structuredContent.fact;
        const memory = out.structuredContent.memory;
        const results = out.structuredContent.results;
        if (memory) {
            state.memories = [...(state.memories ?? []), memory.content];
            what = `remembered ${memory.id}`;
        } else if (Array.isArray(results) && state.memories?.length) {
            // A search finds what the commands before remembered.
            for (const m of state.memories) {
                if (!results.some(r => r.content === m)) fail(`does not find "${m}", remembered by an earlier command`);
            }
            what = `found ${results.length} memories, the remembered one among them`;
        } else if (fact) {
            state.facts.push({ id: fact.fact_id, content: fact.content, category: fact.category });
            what = `published ${fact.fact_id} version ${fact.version} (${fact.category})`;
        } else {
            what = text.split('\n')[0];
        }
        break;
    }
    case 'resources/read': {
        const contents = out.contents ?? [];
        if (!contents.length) fail('no contents');
        if (contents[0].uri !== uri) fail(`content uri ${contents[0].uri}`);
        const text = contents.map(c => c.text ?? '').join('\n');
        if (!text) fail('empty text');
        // Whatever the commands before published must show in the resource that lists it.
        const shown = state.facts.filter(f => uri === 'memory://facts/snapshot' || (uri === 'memory://policies/core' && f.category === 'core_policy'));
        for (const f of shown) {
            if (!text.includes(f.content)) fail(`does not show ${f.id} ("${f.content}") published by an earlier command`);
        }
        what = `${contents[0].mimeType}, ${text.length} characters${shown.length ? `, showing ${shown.map(f => f.id).join(', ')}` : ''}`;
        break;
    }
    case 'prompts/get': {
        if (!out.messages?.length) fail('no messages');
        what = `${out.messages.length} messages`;
        break;
    }
    default:
        fail('no check for this method: add one to compat/inspector-check.mjs');
}
fs.writeFileSync(statePath, JSON.stringify(state));
console.log(`ok    ${method}${uri ? ' ' + uri : ''}: ${what}`);
