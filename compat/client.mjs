// Runs the official MCP TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
// package-lock.json) against bin/memory-mcp over stdio, the way Claude Desktop and the IDE
// clients built on it do, and fails on anything such a client would reject.
//
// For each identity (an agent of each seniority, mid being the default configuration; a
// human) on a fresh data directory it checks that it is offered exactly the tools it may use,
// lists and calls every tool, reads every resource and every
// resource template, gets every prompt, and once checks that a subscription reports a
// change made by a second server process on the same data directory.
//
// Where the SDK checks a tool's structured output (node_modules/@modelcontextprotocol/sdk/
// dist/esm/client/index.js, SDK 1.32): Client.listTools() calls cacheToolMetadata(), which
// compiles each tool's outputSchema with Ajv (validation/ajv-provider.js: formats such as
// date-time are checked too); Client.callTool() then looks up that validator, fails a
// result without structuredContent unless isError, and throws McpError "Structured content
// does not match the tool's output schema: ..." on a mismatch. So the validation is only
// active after listTools(), which every run does first; selfCheckValidation() proves it is
// active by calling a tool through a deliberately stricter schema and expecting the throw.
//
// With COMPAT_POSTGRES set to a PostgreSQL server's URL (a user that may create databases),
// every data directory keeps its memory in a fresh database on that server instead
// (--database, through MEMORY_MCP_DATABASE), made and dropped by scripts/postgres.sh: the
// same checks against a PostgreSQL-backed server. `make compat` runs both.
//
// Usage: node client.mjs [path/to/memory-mcp]   (default ../bin/memory-mcp)
// Exit status 0 only if every call succeeded or failed exactly as expected.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { LATEST_PROTOCOL_VERSION, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(process.argv[2] ?? path.join(here, '..', 'bin', 'memory-mcp'));
const SDK_VERSION = JSON.parse(
    fs.readFileSync(path.join(here, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8')
).version;
const UPDATE_TIMEOUT_MS = 10_000; // the server polls its change feed every 500 ms
const WATCHDOG_MS = 240_000;
const VERBOSE = process.env.COMPAT_VERBOSE === '1'; // print every structured result

const failures = []; // what failed, in words a reader can act on
const expected = []; // documented tool errors the suite asked for
let calls = 0;
const negotiated = new Set();

function fail(where, what) {
    failures.push(`${where}: ${what}`);
    console.log(`FAIL  ${where}: ${what}`);
}

function short(v) {
    const s = JSON.stringify(v);
    return s.length > 160 ? s.slice(0, 157) + '...' : s;
}

function textOf(result) {
    return (result?.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
}

// ---------------------------------------------------------------------------------------
// Connections

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-mcp-compat-'));

// With COMPAT_POSTGRES, each data directory's database on that server, made on first use.
const POSTGRES = process.env.COMPAT_POSTGRES ?? '';
const postgresScript = path.join(here, '..', 'scripts', 'postgres.sh');
const databases = new Map();

function databaseFor(dataDir) {
    if (!POSTGRES) return {};
    if (!databases.has(dataDir)) {
        const url = execFileSync(postgresScript, ['database', POSTGRES], { encoding: 'utf8' }).trim();
        databases.set(dataDir, url);
    }
    return { MEMORY_MCP_DATABASE: databases.get(dataDir) };
}

function dropDatabases() {
    for (const url of databases.values()) {
        try {
            execFileSync(postgresScript, ['drop', url], { stdio: 'inherit' });
        } catch (e) {
            console.log(`could not drop ${url}: ${e.message}`);
        }
    }
}

async function connect(name, dataDir, flags) {
    const transport = new StdioClientTransport({
        command: BIN,
        args: ['stdio', '--data-dir', dataDir, ...flags],
        // Only these reach the server (the SDK passes no other variable by default): HOME
        // points into the temp root, so no user config file or default data directory is
        // ever read or written.
        env: { HOME: tmpRoot, PATH: process.env.PATH ?? '/usr/bin:/bin', ...databaseFor(dataDir) },
        stderr: 'pipe'
    });
    const stderr = [];
    transport.stderr?.on('data', d => stderr.push(d.toString()));
    const client = new Client({ name: 'memory-mcp-compat', version: '1.0.0' }, { capabilities: {} });
    // Record the negotiated protocol version and each raw tools/call result. The wrapper
    // only observes: callTool() still runs its own output validation on the same result,
    // and the raw result lets the suite keep going (and report the data) after a mismatch.
    const conn = { name, client, transport, stderr, protocol: undefined, lastRaw: undefined };
    const request = client.request.bind(client);
    client.request = async (req, schema, options) => {
        const res = await request(req, schema, options);
        if (req.method === 'initialize') conn.protocol = res.protocolVersion;
        if (req.method === 'tools/call') conn.lastRaw = res;
        return res;
    };
    await client.connect(transport);
    negotiated.add(conn.protocol);
    console.log(`connected ${name}: protocol ${conn.protocol} (SDK ${SDK_VERSION} asks for ${LATEST_PROTOCOL_VERSION}), ` +
        `server ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}`);
    return conn;
}

async function close(conn) {
    try {
        await conn.client.close();
    } catch (e) {
        fail(conn.name, `close: ${e.message}`);
    }
}

function serverLog(conn) {
    const s = conn.stderr.join('');
    return s.length > 4000 ? '...' + s.slice(-4000) : s;
}

// ---------------------------------------------------------------------------------------
// Tool calls

// call runs one tool call through the SDK's callTool (which validates structuredContent).
// expect: 'ok' or an error code the call must fail with as a tool error (isError result).
// It returns the structured result, also when the SDK rejected it, so later steps go on.
async function call(ctx, tool, args, expect = 'ok') {
    calls++;
    // The first call of each tool that writes carries an idempotency_key and is sent
    // twice: the repeat must be answered with the first result (or, after an error,
    // fail the same way, since a refused call records nothing under its key).
    const keyed = ctx.writes?.has(tool) && !ctx.keyed.has(tool);
    if (keyed) {
        ctx.keyed.add(tool);
        args = { ...args, idempotency_key: `compat-${ctx.name}-${tool}-${process.pid}` };
    }
    ctx.called.set(tool, [...(ctx.called.get(tool) ?? []), Object.keys(args)]);
    const where = `${ctx.name} ${tool} ${short(args)}`;
    ctx.conn.lastRaw = undefined;
    let result;
    try {
        result = await ctx.conn.client.callTool({ name: tool, arguments: args });
    } catch (e) {
        const raw = ctx.conn.lastRaw;
        fail(where, `${e.message}${raw ? `\n      structuredContent: ${JSON.stringify(raw.structuredContent)}` : ''}`);
        return raw && !raw.isError ? raw.structuredContent : undefined;
    }
    const text = textOf(result);
    if (expect === 'ok') {
        if (result.isError) {
            fail(where, `tool error: ${text}`);
            return undefined;
        }
        if (!text) fail(where, 'no text content');
        if (keyed) {
            const again = await ctx.conn.client.callTool({ name: tool, arguments: args });
            if (again.isError || textOf(again) !== text ||
                JSON.stringify(again.structuredContent) !== JSON.stringify(result.structuredContent)) {
                fail(where, `repeated with its idempotency_key, it returned ${JSON.stringify(again.structuredContent)} ${textOf(again)}, not the first result`);
            }
        }
        console.log(`ok    ${where}`);
        if (VERBOSE) console.log(`      ${JSON.stringify(result.structuredContent)}`);
        return result.structuredContent;
    }
    if (keyed && result.isError) {
        const again = await ctx.conn.client.callTool({ name: tool, arguments: args });
        if (!again.isError || !textOf(again).startsWith(expect)) fail(where, `repeated with its idempotency_key after ${expect}: ${textOf(again)}`);
    }
    if (result.isError && text.startsWith(expect)) {
        expected.push(`${where}: ${text}`);
        console.log(`ok    ${where} -> expected ${expect}`);
        return undefined;
    }
    fail(where, `expected a tool error ${expect}, got ${result.isError ? 'tool error: ' + text : 'success: ' + text}`);
    return undefined;
}

// need skips a step whose input an earlier (failed) step should have produced.
function need(ctx, tool, values) {
    const missing = Object.entries(values).filter(([, v]) => v === undefined || v === null).map(([k]) => k);
    if (missing.length === 0) return true;
    calls++;
    fail(`${ctx.name} ${tool}`, `skipped: no ${missing.join(', ')} from an earlier step`);
    return false;
}

// falseRepeat: a false repeat loses nothing. remember A, then B, which dedup's words tier
// answers "duplicate" of A (it folds articles and plural endings) though it says something
// else; the answer names the repeat and tells how to store B; search_memory with ids [A] gives B's
// words back; remember B with not_a_repeat_of A stores it; search finds B.
async function falseRepeat(ctx) {
    const where = `${ctx.name} false repeat`;
    const a = (await call(ctx, 'remember', { content: 'The compat team reviews the pull request.', namespace: 'compat-review' }))?.id;
    const said = { content: 'The compat team reviews pull requests.', namespace: 'compat-review' };
    const b = await call(ctx, 'remember', said);
    const answer = textOf(ctx.conn.lastRaw);
    if (b?.outcome !== 'duplicate' || b?.duplicate_of !== a || !b?.repeat_id || !answer.includes(`not_a_repeat_of "${a}"`)) {
        fail(where, `the near repeat was not answered duplicate of ${a} with a repeat and how to store it: ${JSON.stringify(b)} ${answer}`);
        return;
    }
    const rec = await call(ctx, 'search_memory', { ids: [a] });
    const rep = rec?.repeats?.find(r => r.id === b.repeat_id);
    if (rep?.content !== said.content || rep?.memory_id !== a) {
        fail(where, `search_memory of ids ${a} did not give the repeat's words back: ${JSON.stringify(rec?.repeats)}`);
        return;
    }
    const own = await call(ctx, 'remember', { ...said, content: rep.content, not_a_repeat_of: a });
    if (own?.outcome !== 'stored' || own?.id === a) {
        fail(where, `not_a_repeat_of ${a} did not store the words: ${JSON.stringify(own)}`);
        return;
    }
    const found = await call(ctx, 'search_memory', { query: 'compat team reviews pull requests', namespaces: ['compat-review'] });
    const ids = (found?.results ?? []).map(r => r.id);
    if (!ids.includes(own.id) || !ids.includes(a)) fail(where, `search finds ${JSON.stringify(ids)}, want ${a} and ${own.id}`);
}

const inAYear = () => new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString();
const now = () => new Date().toISOString();

// TOOLS: every tool the server may list, in the order that makes each call meaningful,
// with its calls: one with only the required arguments and one with every argument (so
// optional result fields are both absent and present), plus empty results where arrays
// could come back empty. A tool the server lists that is not here fails the suite.
const TOOLS = {
    // Organisational facts
    publish_fact: async ctx => {
        ctx.fact1 = (await call(ctx, 'publish_fact', { content: 'All services authenticate with JWT.', category: 'adr' }))?.fact?.fact_id;
        ctx.fact2 = (await call(ctx, 'publish_fact', {
            fact_id: 'compat-deploy-procedure',
            content: 'Deploys go through the release pipeline, never by hand.',
            category: 'procedure',
            tags: ['deploy', 'ci'],
            expected_version: 0
        }))?.fact?.fact_id;
        // Superseded marker in every read.
        ctx.fact3 = (await call(ctx, 'publish_fact', {
            content: 'Deploys are done by hand on Fridays.',
            category: 'convention',
            tags: ['superseded_by:compat-deploy-procedure']
        }))?.fact?.fact_id;
        // core_policy needs a human or an agent of seniority senior or above, and a
        // senior agent's is held for a human's approval (EHELD, an error result).
        const r = await call(ctx, 'publish_fact', { content: 'Never store secrets in memory.', category: 'core_policy' },
            ctx.human ? 'ok' : ctx.senior ? 'EHELD' : 'EFORBIDDEN');
        if (r) ctx.policy = r.fact?.fact_id;
    },
    query_facts: async ctx => {
        await call(ctx, 'query_facts', {});
        await call(ctx, 'query_facts', { query: 'release pipeline', categories: ['procedure', 'adr'], tags: ['deploy'], as_of: now(), limit: 5 });
        // Nothing matches: empty lists must still match the schema.
        await call(ctx, 'query_facts', { query: 'zebra xylophone', as_of: '2001-01-01T00:00:00Z' });
        // One fact by id, with its history (what get_fact did).
        if (!need(ctx, 'query_facts', { fact1: ctx.fact1, fact3: ctx.fact3 })) return;
        const one = await call(ctx, 'query_facts', { id: ctx.fact1 });
        if (one && (one.facts?.[0]?.fact_id !== ctx.fact1 || !one.history?.length)) fail(`${ctx.name} query_facts id`, `not the fact with its history: ${JSON.stringify(one)}`);
        await call(ctx, 'query_facts', { id: ctx.fact3 });
        // One category in full, a page at a time (what list_facts did).
        await call(ctx, 'query_facts', { category: 'adr' });
        await call(ctx, 'query_facts', { category: 'procedure', offset: 0, limit: 10 });
        await call(ctx, 'query_facts', { category: 'other' }); // empty
        await call(ctx, 'query_facts', { id: ctx.fact1, query: 'JWT' }, 'EINVALID');
    },
    retract_fact: async ctx => {
        if (!need(ctx, 'retract_fact', { fact1: ctx.fact1, fact2: ctx.fact2 })) return;
        // Retracting shared knowledge is high risk: an agent's retraction is held.
        const held = ctx.human ? 'ok' : 'EHELD';
        await call(ctx, 'retract_fact', { fact_id: ctx.fact1 }, held);
        await call(ctx, 'retract_fact', { fact_id: ctx.fact2, reason: 'replaced by the compat suite', expected_version: 1 }, held);
        await call(ctx, 'query_facts', { id: ctx.fact2 }); // retracted, with its log
    },

    // Agent memory
    remember: async ctx => {
        ctx.mem1 = (await call(ctx, 'remember', { content: 'The staging database lives in eu-west-1.' }))?.id;
        ctx.mem2 = (await call(ctx, 'remember', {
            content: 'On 1 March 2026 the staging database ran out of disk during the nightly backup.',
            category: 'episodic',
            namespace: 'compat',
            tags: ['infra', 'incident'],
            confidence: 0.9,
            source: 'compat-suite',
            occurred_at: '2026-03-01T10:00:00Z',
            expires_at: inAYear()
        }))?.id;
        await falseRepeat(ctx);
    },
    search_memory: async ctx => {
        await call(ctx, 'search_memory', { query: 'staging database' });
        await call(ctx, 'search_memory', {
            query: 'staging database disk',
            scope: 'all',
            categories: ['episodic', 'semantic'],
            tags: ['infra'],
            namespaces: ['compat'],
            since: '2026-01-01T00:00:00Z',
            until: '2026-06-01T00:00:00Z',
            limit: 5,
            min_relevance: 0
        });
        await call(ctx, 'search_memory', { query: 'zebra xylophone', scope: 'shared' }); // empty
        await call(ctx, 'search_memory', {}, 'EINVALID'); // a query or ids
        // ids instead of a query: the memories in full (what recall_memory did).
        if (!need(ctx, 'search_memory', { mem1: ctx.mem1, mem2: ctx.mem2 })) return;
        await call(ctx, 'search_memory', { ids: [ctx.mem1, ctx.mem2] });
        await call(ctx, 'search_memory', { ids: [ctx.mem1], query: 'staging' }, 'EINVALID');
    },
    publish_memory: async ctx => {
        if (!need(ctx, 'publish_memory', { mem2: ctx.mem2 })) return;
        const r = await call(ctx, 'publish_memory', { id: ctx.mem2 });
        if (!need(ctx, 'publish_memory', { 'shared copy id': r?.id })) return;
        await call(ctx, 'search_memory', { ids: [ctx.mem2, r.id] }); // the original and its shared copy, with provenance
        // What the shared space already says stores nothing; what contradicts it is stored with the conflict open.
        const ci = async content => (await call(ctx, 'remember', { content, namespace: 'compat-ci' }))?.id;
        const first = await ci('The compat build cache lives on NFS.');
        const copy = (await call(ctx, 'publish_memory', { id: first }))?.id;
        await call(ctx, 'forget', { ids: [first] }); // its shared copy stays
        const again = await ci('the compat build cache lives on NFS');
        const dup = await call(ctx, 'publish_memory', { id: again });
        if (dup?.outcome !== 'duplicate' || dup?.duplicate_of !== copy || !dup?.repeat_id) {
            fail('publish_memory', `a repeat of shared memory ${copy} was not a duplicate of it with a repeat: ${JSON.stringify(dup)}`);
        }
        // Its publisher says it differs: shared as its own copy after all.
        const own = await call(ctx, 'publish_memory', { id: again, not_a_repeat_of: copy });
        if (own?.outcome !== 'stored' || own?.id === copy) {
            fail('publish_memory', `not_a_repeat_of ${copy} did not share a copy of its own: ${JSON.stringify(own)}`);
        }
        const monday = (await call(ctx, 'publish_memory', { id: await ci('The compat train leaves on Monday.') }))?.id;
        const clash = await call(ctx, 'publish_memory', { id: await ci('The compat train leaves on Thursday.') });
        if (clash?.conflicts?.[0]?.older_id !== monday || clash?.conflicts?.[0]?.resolution !== 'open') {
            fail('publish_memory', `a contradicting day left no open conflict with ${monday}: ${JSON.stringify(clash?.conflicts)}`);
        }
    },
    retract_memory: async ctx => {
        if (!need(ctx, 'retract_memory', { mem2: ctx.mem2 })) return;
        await call(ctx, 'retract_memory', { id: ctx.mem2 }, ctx.human ? 'ok' : 'EHELD');
    },
    list_conflicts: async ctx => {
        // A newer day supersedes the older; a less sure amount leaves both, open.
        const tue = (await call(ctx, 'remember', { content: 'The compat offsite is on Tuesday.' }))?.id;
        const wed = await call(ctx, 'remember', { content: 'The compat offsite is on Wednesday.' });
        if (wed?.conflicts?.[0]?.older_id !== tue || wed?.conflicts?.[0]?.resolution !== 'newer_wins') {
            fail('remember', `a contradicting day did not supersede ${tue}: ${JSON.stringify(wed?.conflicts)}`);
        }
        await call(ctx, 'remember', { content: 'The compat offsite budget is 400 euros.' });
        const open = await call(ctx, 'remember', { content: 'The compat offsite budget is 600 euros.', confidence: 0.5 });
        ctx.conflict = open?.conflicts?.[0]?.id;
        await call(ctx, 'remember', { content: 'The compat offsite moved to Lisbon.', supersedes: wed?.id });
        await call(ctx, 'search_memory', { ids: [tue] }); // superseded_by
        // A repeat with a new tag is merged into a new memory with both tags.
        const wifi = (await call(ctx, 'remember', { content: 'The compat wifi is on floor 2.', tags: ['office'] }))?.id;
        const merged = await call(ctx, 'remember', { content: 'the compat wifi is on floor 2', tags: ['office', 'wifi'] });
        if (merged?.outcome !== 'merged' || merged?.merged_from !== wifi) {
            fail('remember', `a repeat with a new tag was not merged from ${wifi}: ${JSON.stringify(merged)}`);
        }
        await call(ctx, 'list_conflicts', {});
        await call(ctx, 'list_conflicts', { resolutions: ['all'], limit: 5 });
        await call(ctx, 'list_conflicts', { agent_id: ctx.human ? ctx.agentId : 'compat-peer' }, ctx.human ? 'ok' : 'EFORBIDDEN');
        await call(ctx, 'list_conflicts', { resolutions: ['both_hold'] }); // empty
        // Facts: another day is an open conflict for someone to decide; a repeat is not stored.
        await call(ctx, 'publish_fact', { fact_id: 'compat-window', content: 'The compat deploy window is on Friday.', category: 'convention' });
        const clash = await call(ctx, 'publish_fact', { fact_id: 'compat-window-2', content: 'The compat deploy window is on Tuesday.', category: 'convention' });
        if (clash?.conflicts?.[0]?.older_id !== 'compat-window' || clash?.conflicts?.[0]?.resolution !== 'open') {
            fail('publish_fact', `a contradicting fact did not open a conflict with compat-window: ${JSON.stringify(clash?.conflicts)}`);
        }
        ctx.factConflict = clash?.conflicts?.[0]?.id;
        const dup = await call(ctx, 'publish_fact', { content: 'the compat deploy window is on Friday', category: 'convention' });
        if (dup?.outcome !== 'duplicate' || dup?.duplicate_of !== 'compat-window') {
            fail('publish_fact', `a repeated fact was not a duplicate of compat-window: ${JSON.stringify(dup)}`);
        }
        await call(ctx, 'list_conflicts', { subject: 'facts' });
    },
    resolve_conflict: async ctx => {
        if (!need(ctx, 'resolve_conflict', { conflict: ctx.conflict })) return;
        await call(ctx, 'resolve_conflict', { id: ctx.conflict, keep: 'both' });
        await call(ctx, 'resolve_conflict', { id: ctx.conflict, keep: 'newer', reason: 'the venue raised its price' });
        if (!need(ctx, 'resolve_conflict', { 'fact conflict': ctx.factConflict })) return;
        await call(ctx, 'resolve_conflict', { id: ctx.factConflict, keep: 'both' });
        // Keeping one fact retracts the other: an agent's is held for a human.
        await call(ctx, 'resolve_conflict', { id: ctx.factConflict, keep: 'newer' }, ctx.human ? 'ok' : 'EHELD');
        await call(ctx, 'resolve_conflict', { id: 'cf_nope', keep: 'older' }, 'ENOTFOUND');
    },
    consolidate_memory: async ctx => {
        ctx.garden = [];
        for (const content of ['Watered the garden bed before work.', 'Planted tomatoes in the garden bed.',
            'Aphids on the garden tomatoes; sprayed soapy water.', 'Harvested the first garden tomatoes.']) {
            ctx.garden.push((await call(ctx, 'remember', { content, namespace: 'compat-garden', category: 'episodic', tags: ['garden'] }))?.id);
        }
        await call(ctx, 'consolidate_memory', { dry_run: true, older_than: '0' });
        const r = await call(ctx, 'consolidate_memory', {
            namespace: 'compat-garden', categories: ['episodic'], dry_run: false, strategy: 'simple', older_than: '0d'
        });
        ctx.summary = r?.groups?.[0]?.summary_id;
        ctx.archived = r?.groups?.[0]?.sources?.[0];
        // A human may name whose memories (its own here); an agent may not name another.
        const whose = ctx.human ? ctx.agentId : 'compat-peer';
        await call(ctx, 'consolidate_memory', { agent_id: whose, older_than: '0' }, ctx.human ? 'ok' : 'EFORBIDDEN');
        await call(ctx, 'consolidate_memory', {}); // nothing a day old
        await call(ctx, 'search_memory', { query: 'garden tomatoes aphids', include_archived: true });
    },
    list_memories: async ctx => {
        await call(ctx, 'list_memories', {});
        await call(ctx, 'list_memories', {
            categories: ['episodic'], namespaces: ['compat-garden'], tags: ['garden'],
            states: ['active', 'consolidated', 'superseded', 'archived', 'expired', 'forgotten'], offset: 0, limit: 10
        });
        await call(ctx, 'list_memories', { namespaces: ['nowhere'], counts: true }); // empty, with the counts (what memory_stats did)
        await call(ctx, 'list_memories', { agent_id: ctx.human ? ctx.agentId : 'compat-peer' }, ctx.human ? 'ok' : 'EFORBIDDEN');
    },
    restore_memory: async ctx => {
        if (!need(ctx, 'restore_memory', { archived: ctx.archived, summary: ctx.summary })) return;
        await call(ctx, 'restore_memory', { id: ctx.archived, agent_id: 'compat-peer' }, ctx.human ? 'ENOTFOUND' : 'EFORBIDDEN');
        await call(ctx, 'restore_memory', { id: ctx.archived });
        await call(ctx, 'search_memory', { ids: [ctx.summary, ctx.archived] }); // a summary with its sources
    },
    forget: async ctx => {
        if (!need(ctx, 'forget', { mem1: ctx.mem1, mem2: ctx.mem2 })) return;
        await call(ctx, 'forget', { ids: [ctx.mem1] });
        await call(ctx, 'forget', { ids: [ctx.mem2], reason: 'obsolete: the disk was replaced' });
        await call(ctx, 'search_memory', { ids: [ctx.mem1, ctx.mem2] }); // forgotten, marked
    },
    record_distillation: async ctx => {
        await call(ctx, 'record_distillation', { task_id: 'COMPAT-1', outcome: 'completed' });
        await call(ctx, 'record_distillation', {
            task_id: 'COMPAT-2',
            outcome: 'error',
            error: 'the compat suite found a failing call',
            summary: 'Ran the compatibility suite against the server.',
            namespace: 'compat',
            turns: 6,
            total_tokens: 12000,
            tools_used: ['remember', 'search_memory'],
            total_tool_calls: 9,
            memory_tool_calls: { search_memory: 2 }
        });
        await call(ctx, 'record_distillation', { task_id: 'COMPAT-3', outcome: 'success' }, 'EINVALID');
    },

    // The memory tool (Claude's memory_20250818 commands over the blocks): each command,
    // and the reference implementation's errors.
    memory: async ctx => {
        const f = '/memories/compat/notes.md';
        await call(ctx, 'memory', { command: 'view', path: '/memories' });
        await call(ctx, 'memory', { command: 'create', path: f, file_text: 'Meeting notes:\n- timeline\n- next steps\n' });
        await call(ctx, 'memory', { command: 'create', path: f, file_text: 'again' }, 'ECONFLICT');
        await call(ctx, 'memory', {
            command: 'create', path: '/memories/shared/compat-board.md', file_text: 'Welcome.', description: 'The compat board.',
            limit: 500, writers: ['*'], readers: [ctx.agentId, 'compat-peer'], read_only: false
        });
        const v = await call(ctx, 'memory', { command: 'view', path: f, view_range: [1, -1] });
        if (!need(ctx, 'memory', { sha256: v?.sha256, version: v?.file?.version })) return;
        await call(ctx, 'memory', { command: 'view', path: '/memories/compat' });
        await call(ctx, 'memory', { command: 'view', path: '/memories/nope.md' }, 'ENOTFOUND');
        await call(ctx, 'memory', { command: 'view' }, 'EINVALID'); // every command names its path
        await call(ctx, 'memory', { command: 'view', path: '/etc/passwd' }, 'EINVALID');
        await call(ctx, 'memory', { command: 'str_replace', path: f, old_str: 'absent', new_str: 'x' }, 'EINVALID');
        await call(ctx, 'memory', { command: 'str_replace', path: f, old_str: '- ', new_str: '* ' }, 'EINVALID');
        await call(ctx, 'memory', { command: 'str_replace', path: f, old_str: 'timeline', new_str: 'timeline and budget', expected_hash: v.sha256.slice(0, 12) });
        await call(ctx, 'memory', { command: 'str_replace', path: f, old_str: 'next', new_str: 'later', expected_version: v.file.version }, 'ECONFLICT');
        await call(ctx, 'memory', { command: 'insert', path: f, insert_line: 9, insert_text: 'x' }, 'EINVALID');
        await call(ctx, 'memory', { command: 'insert', path: f, insert_line: 1, insert_text: '- attendees' });
        await call(ctx, 'memory', { command: 'rename', old_path: f, new_path: '/memories/compat/monday.md' });
        await call(ctx, 'memory', { command: 'rename', old_path: f, new_path: '/memories/compat/tuesday.md' }, 'ENOTFOUND');
        await call(ctx, 'memory', { command: 'history', path: f });
        await call(ctx, 'memory', { command: 'history', path: f, limit: 2 });
        await call(ctx, 'memory', { command: 'restore', path: f, version: 1 });
        await call(ctx, 'memory', { command: 'delete', path: '/memories' }, 'EINVALID');
        await call(ctx, 'memory', { command: 'delete', path: '/memories/compat/monday.md', expected_version: 1 });
        await call(ctx, 'memory', { command: 'delete', path: '/memories/shared/compat-board.md' });
    },

    // Core memory blocks (offered besides the memory tool with --block-tools)
    memory_block_list: async ctx => {
        await call(ctx, 'memory_block_list', {});
        await call(ctx, 'memory_block_list', { labels_only: true });
    },
    memory_block_read: async ctx => {
        await call(ctx, 'memory_block_read', { label: 'persona' });
    },
    memory_block_create: async ctx => {
        ctx.notesVersion = (await call(ctx, 'memory_block_create', { label: 'compat-notes', description: 'Notes of the compat suite.' }))?.block?.version;
        ctx.sharedVersion = (await call(ctx, 'memory_block_create', {
            label: 'compat:shared',
            description: 'A shared block of the compat suite.',
            content: 'first line',
            limit: 500,
            shared: true,
            writers: ['*'],
            readers: [ctx.agentId, 'compat-peer'],
            read_only: false
        }))?.block?.version;
        await call(ctx, 'memory_block_create', { label: 'compat-scratch', description: 'Deleted by the compat suite.' });
        await call(ctx, 'memory_block_read', { label: 'compat:shared' });
    },
    memory_block_append: async ctx => {
        await call(ctx, 'memory_block_append', { label: 'compat-notes', content: 'line one' });
        const v = (await call(ctx, 'memory_block_read', { label: 'compat-notes' }))?.block?.version;
        if (!need(ctx, 'memory_block_append', { version: v })) return;
        await call(ctx, 'memory_block_append', { label: 'compat-notes', content: 'line two', expected_version: v });
    },
    memory_block_insert: async ctx => {
        const b = await call(ctx, 'memory_block_insert', { label: 'compat-notes', after_line: 0, content: 'top line' });
        if (!need(ctx, 'memory_block_insert', { version: b?.block?.version })) return;
        await call(ctx, 'memory_block_insert', { label: 'compat-notes', after_line: 1, text: 'second line', expected_version: b.block.version }); // text: the old name
    },
    memory_block_replace: async ctx => {
        const b = await call(ctx, 'memory_block_replace', { label: 'compat-notes', old_text: 'line one', new_text: 'line 1' });
        if (!need(ctx, 'memory_block_replace', { version: b?.block?.version })) return;
        await call(ctx, 'memory_block_replace', { label: 'compat-notes', old_text: 'line two', new_text: 'line 2', expected_version: b.block.version });
    },
    memory_block_rethink: async ctx => {
        const v = (await call(ctx, 'memory_block_read', { label: 'compat-notes' }))?.block?.version;
        if (!need(ctx, 'memory_block_rethink', { version: v })) return;
        ctx.notesVersion = (await call(ctx, 'memory_block_rethink', { label: 'compat-notes', content: 'rewritten by the compat suite', expected_version: v }))?.block?.version;
    },
    memory_block_history: async ctx => {
        await call(ctx, 'memory_block_history', { label: 'compat-notes' });
        await call(ctx, 'memory_block_history', { label: 'compat-notes', limit: 3 });
    },
    memory_block_delete: async ctx => {
        await call(ctx, 'memory_block_delete', { label: 'compat-scratch' });
        if (!need(ctx, 'memory_block_delete', { version: ctx.notesVersion })) return;
        ctx.notesVersion = (await call(ctx, 'memory_block_delete', { label: 'compat-notes', expected_version: ctx.notesVersion }))?.block?.version;
        await call(ctx, 'memory_block_history', { label: 'compat-notes', limit: 2 }); // a deleted block's history
    },
    memory_block_restore: async ctx => {
        const b = await call(ctx, 'memory_block_restore', { label: 'compat-notes', version: 2 }); // undeletes
        if (!need(ctx, 'memory_block_restore', { version: b?.block?.version })) return;
        await call(ctx, 'memory_block_restore', { label: 'compat-notes', version: 1, expected_version: b.block.version });
    },

    // Governed shared state
    write_note: async ctx => {
        await call(ctx, 'write_note', { content: 'issue: db_timeout: the staging database times out under load' });
        await call(ctx, 'write_note', { content: 'result: p95 latency is 120 ms after the index change', kind: 'agent', task_id: 'T-1', promote: true });
        // Tool output may not open an issue or record a decision: each waits for a curator.
        await call(ctx, 'write_note', { content: 'issue: disk_full: the build disk is full', kind: 'tool_result', promote: true });
        await call(ctx, 'write_note', { content: 'decision: use_postgres: we move the ledger to Postgres', kind: 'tool_result', promote: true });
        await call(ctx, 'write_note', { content: 'plan: ship the compat suite, then the HTTP server' });
        await call(ctx, 'write_note', { content: 'fixed: db_timeout' });
    },
    promote_notes: async ctx => {
        await call(ctx, 'promote_notes', {});
        await call(ctx, 'write_note', { content: 'learned: the pipeline caches the Go build' });
        await call(ctx, 'promote_notes', { limit: 10 });
        await call(ctx, 'promote_notes', { limit: 10 }); // nothing left: empty outcomes
    },
    shared_state: async ctx => {
        await call(ctx, 'shared_state', {});
        await call(ctx, 'shared_state', { bucket: 'issues', status: 'resolved', limit: 10 });
        await call(ctx, 'shared_state', { bucket: 'constraints', status: 'active', limit: 10 }); // empty
    },
    // What waits for a human: the writes held or under review, and the pending queue.
    list_reviews: async ctx => {
        const l = await call(ctx, 'list_reviews', {});
        ctx.pending = (l?.pending ?? []).map(p => p.pending_id);
        ctx.approval = l?.approvals?.[0]?.id;
        await call(ctx, 'list_reviews', { all: true, status: 'pending', limit: 5 });
    },
    resolve_pending: async ctx => {
        const [p1, p2] = ctx.pending ?? [];
        if (!need(ctx, 'resolve_pending', { 'first pending item': p1, 'second pending item': p2 })) return;
        if (!ctx.human) {
            // Curator action: agents get EFORBIDDEN, whatever they pass.
            await call(ctx, 'resolve_pending', { pending_id: p1 }, 'EFORBIDDEN');
            await call(ctx, 'resolve_pending', { pending_id: p1, target_id: 'disk_full' }, 'EFORBIDDEN');
            await call(ctx, 'resolve_pending', { pending_id: p2, drop_reason: 'tool output is not a decision' }, 'EFORBIDDEN');
            return;
        }
        // target_id and drop_reason exclude each other and one is needed, so a human's calls
        // pass one each (pending_id alone is EINVALID by design).
        await call(ctx, 'resolve_pending', { pending_id: p1, target_id: 'disk_full' });
        await call(ctx, 'resolve_pending', { pending_id: p2, drop_reason: 'tool output is not a decision' });
        await call(ctx, 'list_reviews', { all: true }); // resolved items, with curator and outcome
    },

    // Approval: an agent sees its own held and reviewed writes and may not decide; a human
    // decides a second process's agent's held retraction (applied as that agent) and review.
    decide_approval: async ctx => {
        if (!ctx.human) {
            if (!need(ctx, 'decide_approval', { 'a request': ctx.approval })) return;
            await call(ctx, 'decide_approval', { id: ctx.approval, approve: true, reason: 'mine' }, 'EFORBIDDEN');
            return;
        }
        const peer = await connect(`${ctx.name} peer`, ctx.dataDir, ['--agent-id', 'compat-approvee', '--seniority', 'senior']);
        const pctx = { name: `${ctx.name} peer`, conn: peer, called: new Map(), writes: new Set(), keyed: new Set() };
        try {
            await peer.client.listTools();
            await call(pctx, 'publish_fact', { fact_id: 'compat-approval', content: 'Reviews happen on Mondays.', category: 'convention' });
            await call(pctx, 'retract_fact', { fact_id: 'compat-approval', reason: 'moved to Tuesdays' }, 'EHELD');
        } finally {
            await close(peer);
        }
        const l = await call(ctx, 'list_reviews', { status: 'pending' });
        const hold = l?.approvals?.find(a => a.kind === 'hold')?.id;
        const review = l?.approvals?.find(a => a.kind === 'review')?.id;
        if (!need(ctx, 'decide_approval', { hold, review })) return;
        const d = await call(ctx, 'decide_approval', { id: hold, approve: true, reason: 'agreed' });
        if (d && d.approval?.status !== 'approved') fail(`${ctx.name} decide_approval`, `approved hold is ${d.approval?.status}`);
        await call(ctx, 'decide_approval', { id: hold, approve: false, reason: 'again' }, 'ECONFLICT');
        await call(ctx, 'decide_approval', { id: review, approve: false, reason: 'say which Monday' });
        await call(ctx, 'list_reviews', { status: 'rejected', limit: 5 });
    },
    // Erasure (last: it removes for good). Humans only; the selectors narrow each other.
    erase: async ctx => {
        const marker = 'compat erase marker';
        const m = (await call(ctx, 'remember', { content: `The ${marker} is stored to be erased.` }))?.id;
        if (!need(ctx, 'erase', { memory: m })) return;
        const expect = ctx.human ? 'ok' : 'EFORBIDDEN';
        await call(ctx, 'erase', { reason: 'compat suite' }, ctx.human ? 'EINVALID' : 'EFORBIDDEN'); // no selector
        const dry = await call(ctx, 'erase', { contains: marker, dry_run: true, reason: 'compat suite' }, expect);
        if (ctx.human && (dry?.dry_run !== true || dry?.counts?.memories !== 1)) fail(`${ctx.name} erase`, `dry run: ${JSON.stringify(dry)}`);
        const r = await call(ctx, 'erase', { ids: [m], agent_id: ctx.agentId, contains: marker, reason: 'compat suite' }, expect);
        if (ctx.human && (r?.counts?.memories !== 1 || !r?.erasure)) fail(`${ctx.name} erase`, `erase: ${JSON.stringify(r)}`);
        await call(ctx, 'search_memory', { ids: [m] }, ctx.human ? 'ENOTFOUND' : 'ok');
    },
    export_memory: async ctx => {
        const first = await call(ctx, 'export_memory', { limit: 1 });
        if (first?.from !== 0 || !first?.lines?.startsWith('{"format":"memory-mcp"')) fail(`${ctx.name} export_memory`, `first page: ${JSON.stringify(first)}`);
        if (first?.next_cursor) await call(ctx, 'export_memory', { cursor: first.next_cursor, limit: 1 });
        await call(ctx, 'export_memory', {});
        await call(ctx, 'export_memory', { cursor: 'not-a-cursor' }, 'EINVALID');
    },
    finetune_report: async ctx => {
        const r = await call(ctx, 'finetune_report', {}, ctx.human ? 'ok' : 'EFORBIDDEN');
        if (ctx.human && r?.found !== false) fail(`${ctx.name} finetune_report`, `before any run: ${JSON.stringify(r)}`);
    },
    finetune: async ctx => {
        // Too little text here to learn from: a dry run reports why, as a human's.
        const r = await call(ctx, 'finetune', { source: 'all', dry_run: true }, ctx.human ? 'ok' : 'EFORBIDDEN');
        if (ctx.human && !r?.report?.outcome) fail(`${ctx.name} finetune`, `dry run: ${JSON.stringify(r)}`);
        await call(ctx, 'finetune_report', {}, ctx.human ? 'ok' : 'EFORBIDDEN');
        await call(ctx, 'finetune', {}, ctx.human ? 'ok' : 'EFORBIDDEN');
        await call(ctx, 'finetune', { source: 'memories', agent_id: ctx.agentId, namespace: 'default', dry_run: false, eval_only: true, rollback: false },
            ctx.human ? 'ok' : 'EFORBIDDEN');
        await call(ctx, 'finetune', { rollback: true }, ctx.human ? 'EINVALID' : 'EFORBIDDEN');
    }
};

// Tools whose calls cannot include one with only the required arguments, and why.
const NO_REQUIRED_ONLY_CALL = { resolve_pending: 'a human must pass target_id or drop_reason' };

// ---------------------------------------------------------------------------------------
// Resources and prompts

function templateValues(ctx) {
    return {
        'memory://blocks/{+label}': [{ label: 'persona' }, { label: 'compat:notes.md' }],
        'memory://facts/{+fact_id}/history': [ctx.fact2, ctx.fact3, ctx.policy].filter(Boolean).map(fact_id => ({ fact_id })),
        'memory://facts/snapshot/{+as_of}': [{ as_of: now() }, { as_of: '2001-01-01T00:00:00Z' }],
        'memory://shared/{bucket}': ['plan', 'constraints', 'issues', 'decisions', 'results', 'task_state', 'learnings'].map(bucket => ({ bucket })),
        'memory://metrics/{window}': [{ window: '1h' }, { window: '7d' }]
    };
}

const PROMPT_ARGS = {
    core_memory: [{}],
    memory_context: [
        { query: 'staging database' },
        { query: 'staging database', token_budget: '500', categories: 'semantic,episodic', min_relevance: '0.1' }
    ],
    org_policies: [{}]
};

async function readResource(ctx, uri) {
    const where = `${ctx.name} resources/read ${uri}`;
    calls++;
    try {
        const r = await ctx.conn.client.readResource({ uri });
        if (!r.contents?.length) return fail(where, 'no contents');
        for (const c of r.contents) {
            if (c.uri !== uri) fail(where, `content uri ${c.uri}`);
            if (typeof c.text !== 'string') fail(where, 'content without text');
            else if (c.mimeType === 'application/json') {
                try {
                    JSON.parse(c.text);
                } catch (e) {
                    fail(where, `mimeType application/json but not JSON: ${e.message}`);
                }
            }
        }
        console.log(`ok    ${where} (${r.contents[0].mimeType})`);
    } catch (e) {
        fail(where, e.message);
    }
}

async function resourcesAndPrompts(ctx) {
    const { client } = ctx.conn;
    try {
        const { resources } = await client.listResources();
        console.log(`${ctx.name}: ${resources.length} resources`);
        for (const r of resources) await readResource(ctx, r.uri);
    } catch (e) {
        fail(`${ctx.name} resources/list`, e.message);
    }
    try {
        const { resourceTemplates } = await client.listResourceTemplates();
        const values = templateValues(ctx);
        for (const t of resourceTemplates) {
            if (!values[t.uriTemplate]?.length) {
                fail(`${ctx.name} resources/templates/list`, `no values for template ${t.uriTemplate}: add it to templateValues in compat/client.mjs`);
                continue;
            }
            for (const v of values[t.uriTemplate]) await readResource(ctx, new UriTemplate(t.uriTemplate).expand(v));
        }
        for (const t of Object.keys(values)) {
            if (!resourceTemplates.some(rt => rt.uriTemplate === t)) fail(`${ctx.name} resources/templates/list`, `template ${t} is no longer listed`);
        }
    } catch (e) {
        fail(`${ctx.name} resources/templates/list`, e.message);
    }
    try {
        const { prompts } = await client.listPrompts();
        for (const p of prompts) {
            if (!PROMPT_ARGS[p.name]) {
                fail(`${ctx.name} prompts/list`, `prompt ${p.name} is not covered: add it to PROMPT_ARGS in compat/client.mjs`);
                continue;
            }
            for (const args of PROMPT_ARGS[p.name]) {
                const where = `${ctx.name} prompts/get ${p.name} ${short(args)}`;
                calls++;
                try {
                    const r = await client.getPrompt({ name: p.name, arguments: args });
                    if (!r.messages?.length) fail(where, 'no messages');
                    else console.log(`ok    ${where}`);
                } catch (e) {
                    fail(where, e.message);
                }
            }
        }
        for (const name of Object.keys(PROMPT_ARGS)) {
            if (!prompts.some(p => p.name === name)) fail(`${ctx.name} prompts/list`, `prompt ${name} is no longer listed`);
        }
    } catch (e) {
        fail(`${ctx.name} prompts/list`, e.message);
    }
}

// ---------------------------------------------------------------------------------------
// Checks around the tool calls

// selfCheckValidation proves that callTool() validates structuredContent: every tool with an
// outputSchema has a compiled validator, and a call checked against a deliberately stricter
// schema (one more required property) is rejected by the SDK. Then the real schemas are back.
async function selfCheckValidation(ctx, tools) {
    const { client } = ctx.conn;
    for (const t of tools) {
        if (!t.outputSchema) fail(`${ctx.name} tools/list`, `tool ${t.name} declares no outputSchema`);
        else if (typeof client.getToolOutputValidator(t.name) !== 'function') fail(`${ctx.name} self-check`, `the SDK holds no output validator for ${t.name}`);
    }
    const probe = 'query_facts';
    const stricter = tools.map(t => t.name !== probe ? t : {
        ...t,
        outputSchema: { ...t.outputSchema, required: [...(t.outputSchema.required ?? []), 'compat_self_check'] }
    });
    client.cacheToolMetadata(stricter);
    calls++;
    try {
        await client.callTool({ name: probe, arguments: {} });
        fail(`${ctx.name} self-check`, 'the SDK accepted structuredContent that misses a required property: output validation is not active');
    } catch (e) {
        if (/does not match the tool's output schema/.test(e.message) && e.message.includes('compat_self_check')) {
            console.log(`ok    ${ctx.name} self-check: the SDK rejects a mismatch (${e.message})`);
        } else {
            fail(`${ctx.name} self-check`, `unexpected error: ${e.message}`);
        }
    } finally {
        client.cacheToolMetadata(tools);
    }
}

// checkArgumentCoverage: every declared argument was passed by some call, and (unless a
// reason is given) one call passed only the required ones.
function checkArgumentCoverage(ctx, tools) {
    for (const t of tools) {
        const made = ctx.called.get(t.name);
        if (!made) {
            fail(`${ctx.name} ${t.name}`, 'listed but never called');
            continue;
        }
        const props = Object.keys(t.inputSchema.properties ?? {});
        const required = [...(t.inputSchema.required ?? [])].sort();
        const passed = new Set(made.flat());
        const unused = props.filter(p => !passed.has(p));
        if (unused.length) fail(`${ctx.name} ${t.name}`, `no call passes ${unused.join(', ')}: add a call with every argument`);
        // idempotency_key, which every tool that writes takes, is given on a tool's first call.
        const requiredOnly = made.some(keys => JSON.stringify(keys.filter(k => k !== 'idempotency_key').sort()) === JSON.stringify(required));
        if (!requiredOnly && !(NO_REQUIRED_ONLY_CALL[t.name] && ctx.human)) {
            fail(`${ctx.name} ${t.name}`, `no call passes only the required arguments (${required.join(', ') || 'none'})`);
        }
    }
}

// subscription: a subscriber is told about a change another process made.
async function subscription(ctx) {
    const { client } = ctx.conn;
    const updates = [];
    const waiters = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, n => {
        updates.push(n.params.uri);
        for (const w of [...waiters]) w();
    });
    const waitFor = (uri, since) => new Promise(resolve => {
        const check = () => {
            if (updates.slice(since).includes(uri)) {
                waiters.splice(waiters.indexOf(check), 1);
                clearTimeout(timer);
                resolve(true);
            }
        };
        const timer = setTimeout(() => {
            waiters.splice(waiters.indexOf(check), 1);
            resolve(false);
        }, UPDATE_TIMEOUT_MS);
        waiters.push(check);
        check();
    });
    const uris = ['memory://facts/snapshot', 'memory://policies/core'];
    for (const uri of uris) {
        calls++;
        try {
            await client.subscribeResource({ uri });
        } catch (e) {
            fail(`${ctx.name} resources/subscribe ${uri}`, e.message);
            return;
        }
    }
    // A second process on the same data directory, through the same SDK client.
    // Approval off: the peer's core policy is to be written, not held for a human.
    const peer = await connect(`${ctx.name} peer`, ctx.dataDir, ['--agent-id', 'compat-peer', '--seniority', 'senior', '--approval', 'off']);
    const pctx = { name: `${ctx.name} peer`, conn: peer, called: new Map() };
    try {
        await peer.client.listTools(); // activates the peer's output validation
        const cases = [
            [uris[0], { content: 'The peer process publishes this fact.', category: 'adr' }],
            [uris[1], { content: 'Every write is reviewed.', category: 'core_policy' }]
        ];
        for (const [uri, args] of cases) {
            const since = updates.length;
            const t0 = Date.now();
            await call(pctx, 'publish_fact', args);
            calls++;
            if (await waitFor(uri, since)) console.log(`ok    ${ctx.name} notifications/resources/updated ${uri} after ${Date.now() - t0} ms`);
            else fail(`${ctx.name} resources/subscribe ${uri}`, `no notifications/resources/updated within ${UPDATE_TIMEOUT_MS} ms of another process's publish_fact (got: ${short(updates.slice(since))})`);
        }
    } finally {
        await close(peer);
    }
    for (const uri of uris) {
        calls++;
        try {
            await client.unsubscribeResource({ uri });
        } catch (e) {
            fail(`${ctx.name} resources/unsubscribe ${uri}`, e.message);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Runs

// An agent of each seniority (mid is the default configuration) and a human: each must be
// offered exactly the tools and arguments it may use (HUMANS_ONLY, HUMAN_ARGS), and complete
// every call.
const RUNS = [
    { name: 'agent', agentId: 'compat-agent', flags: [], subscription: true },
    { name: 'junior', agentId: 'compat-junior', flags: ['--seniority', 'junior'] },
    { name: 'senior', agentId: 'compat-senior', flags: ['--seniority', 'senior', '--block-tools'], senior: true, blockTools: true },
    { name: 'lead', agentId: 'compat-lead', flags: ['--seniority', 'lead'], senior: true },
    { name: 'principal', agentId: 'compat-principal', flags: ['--seniority', 'principal'], senior: true },
    { name: 'human', agentId: 'compat-human', flags: ['--human'], human: true }
];

// Tools for human operators only: an agent's tools/list leaves them out, and its call of one
// is refused with EFORBIDDEN (TOOLS calls them as an agent too, expecting that).
const HUMANS_ONLY = new Set(['erase', 'decide_approval', 'resolve_pending', 'finetune', 'finetune_report']);
// Arguments only a human may give, left out of an agent's input schemas.
const HUMAN_ARGS = {
    list_conflicts: ['agent_id'], consolidate_memory: ['agent_id'], restore_memory: ['agent_id'],
    list_memories: ['agent_id'], memory_block_create: ['read_only']
};

// Tools merged into others: listed to no one, callable for a release with what they took.
const RETIRED = {
    get_fact: ctx => call(ctx, 'get_fact', { fact_id: ctx.fact1, include_history: true }),
    list_facts: ctx => call(ctx, 'list_facts', { category: 'adr', offset: 0, limit: 10 }),
    memory_stats: ctx => call(ctx, 'memory_stats', {}),
    recall_memory: ctx => ctx.mem2 && call(ctx, 'recall_memory', { ids: [ctx.mem2] }),
    list_pending: ctx => call(ctx, 'list_pending', { all: true }),
    list_approvals: ctx => call(ctx, 'list_approvals', { status: 'pending' })
};

// retired fails for a retired tool that is listed, or that no longer answers.
async function retired(ctx, listed) {
    for (const [name, step] of Object.entries(RETIRED)) {
        if (listed.has(name)) fail(`${ctx.name} tools/list`, `tool ${name} is retired but listed`);
        await step(ctx);
    }
}

// checkOffered fails for a tool or argument listed that the identity may not use, and for
// one it may use that is not listed.
function checkOffered(spec, tools, listed) {
    for (const name of Object.keys(TOOLS)) {
        // The memory_block_* tools are offered only with --block-tools.
        if (name.startsWith('memory_block_')) {
            if (!listed.has(name) && spec.blockTools) fail(`${spec.name} tools/list`, `tool ${name} is no longer listed`);
            if (listed.has(name) && !spec.blockTools) fail(`${spec.name} tools/list`, `tool ${name} is listed without --block-tools`);
            continue;
        }
        const offered = !HUMANS_ONLY.has(name) || spec.human;
        if (offered && !listed.has(name)) fail(`${spec.name} tools/list`, `tool ${name} is no longer listed`);
        if (!offered && listed.has(name)) fail(`${spec.name} tools/list`, `tool ${name} is for humans but is offered to an agent`);
    }
    for (const t of tools) {
        const props = Object.keys(t.inputSchema.properties ?? {});
        for (const arg of HUMAN_ARGS[t.name] ?? []) {
            if (spec.human && !props.includes(arg)) fail(`${spec.name} tools/list`, `${t.name} does not offer the human ${arg}`);
            if (!spec.human && props.includes(arg)) fail(`${spec.name} tools/list`, `${t.name} offers ${arg}, which only a human may give, to an agent`);
        }
    }
}

async function run(spec) {
    const dataDir = fs.mkdtempSync(path.join(tmpRoot, `${spec.name}-`));
    const ctx = { ...spec, dataDir, called: new Map() };
    const on = POSTGRES ? ` (memory in PostgreSQL: ${databaseFor(dataDir).MEMORY_MCP_DATABASE})` : '';
    console.log(`\n== ${spec.name}: memory-mcp stdio --data-dir ${dataDir} --agent-id ${spec.agentId} ${spec.flags.join(' ')}${on}`);
    ctx.conn = await connect(spec.name, dataDir, ['--agent-id', spec.agentId, ...spec.flags]);
    const before = failures.length;
    try {
        if (spec.subscription) await subscription(ctx);
        const { tools, nextCursor } = await ctx.conn.client.listTools();
        if (nextCursor) fail(`${spec.name} tools/list`, 'paginated: the SDK caches output validators of the last page only');
        console.log(`${spec.name}: ${tools.length} tools`);
        ctx.writes = new Set(tools.filter(t => t.annotations?.readOnlyHint === false).map(t => t.name));
        ctx.keyed = new Set();
        const listed = new Set(tools.map(t => t.name));
        for (const name of listed) {
            if (!TOOLS[name]) fail(`${spec.name} tools/list`, `tool ${name} is not covered: add its calls to TOOLS in compat/client.mjs`);
        }
        checkOffered(spec, tools, listed);
        await selfCheckValidation(ctx, tools);
        for (const [name, steps] of Object.entries(TOOLS)) {
            if (listed.has(name) || HUMANS_ONLY.has(name)) await steps(ctx);
        }
        checkArgumentCoverage(ctx, tools);
        await retired(ctx, listed);
        await resourcesAndPrompts(ctx);
    } catch (e) {
        fail(spec.name, `aborted: ${e.stack ?? e}`);
    } finally {
        await close(ctx.conn);
        if (failures.length > before) console.log(`-- server log (${spec.name}):\n${serverLog(ctx.conn)}`);
    }
}

const watchdog = setTimeout(() => {
    fail('compat', `still running after ${WATCHDOG_MS / 1000} s`);
    finish();
}, WATCHDOG_MS);

function finish() {
    clearTimeout(watchdog);
    fs.rmSync(tmpRoot, { recursive: true, force: true });
    dropDatabases();
    console.log(`\nSDK ${SDK_VERSION}; negotiated protocol version: ${[...negotiated].join(', ')}`);
    console.log(`${calls} checks, ${expected.length} expected tool errors, ${failures.length} failures`);
    if (failures.length) {
        console.log('\nFailures:');
        for (const f of failures) console.log(`- ${f.split('\n')[0]}`); // details are above
    }
    process.exit(failures.length ? 1 : 0);
}

if (!fs.existsSync(BIN)) {
    console.error(`no binary at ${BIN}: run make build`);
    process.exit(2);
}
for (const spec of RUNS) {
    try {
        await run(spec);
    } catch (e) {
        fail(spec.name, `could not start: ${e.stack ?? e}`);
    }
}
finish();
