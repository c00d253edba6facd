// koa-server.js — an async server with many small promises (the process the benchmarks sample): a
// Koa 3 app with @koa/router on 127.0.0.1 only (port: argv[2] or PORT, default 0), every request
// through a chain of async middleware (timing, request id, error boundary, a per-client rate
// count, an ETag over the body) and routes whose handlers await many small async functions of an
// in-memory store — Promise.all over dozens of lookups, each resolved through its own awaits — the
// shape of an API server over a data layer. Prints {"listening": PORT, "pid": …} once ready.
'use strict';
const crypto = require('node:crypto');
const Koa = require('koa');
const Router = require('@koa/router');
const { rng } = require('../lib/harness');

const r = rng(17);
const word = () => ['north', 'south', 'east', 'west', 'up', 'down', 'left', 'right'][Math.floor(r() * 8)];
const users = Array.from({ length: 500 }, (_, i) => ({ id: i, name: `${word()}-${word()}-${i}`, friends: Array.from({ length: 12 }, () => Math.floor(r() * 500)) }));
const posts = Array.from({ length: 4000 }, (_, i) => ({ id: i, author: i % 500, title: `${word()} ${word()}`, likes: Math.floor(r() * 1000), body: `${word()} `.repeat(20) }));
const postsBy = new Map();
for (const p of posts) postsBy.set(p.author, [...(postsBy.get(p.author) || []), p]);

// the data layer: every lookup is its own little chain of promises
const tick = () => Promise.resolve();
async function getUser(id) { await tick(); const u = users[id % users.length]; await tick(); return { ...u }; }
async function getPosts(author) { await tick(); return (postsBy.get(author) || []).slice(0, 8); }
async function likesOf(post) { await tick(); return post.likes + (post.id % 7); }
async function profile(id) {
  const [user, list] = await Promise.all([getUser(id), getPosts(id)]);
  const likes = await Promise.all(list.map(likesOf));
  return { user: user.name, posts: list.map((p, i) => ({ id: p.id, title: p.title, likes: likes[i] })) };
}

const app = new Koa();
const router = new Router();
const seen = new Map();
app.use(async (ctx, next) => { const t0 = process.hrtime.bigint(); await next(); ctx.set('x-time-ns', String(process.hrtime.bigint() - t0)); });
app.use(async (ctx, next) => { ctx.state.id = crypto.randomUUID(); await next(); ctx.set('x-request-id', ctx.state.id); });
app.use(async (ctx, next) => { try { await next(); } catch (e) { ctx.status = 500; ctx.body = { error: e.message }; } });
app.use(async (ctx, next) => { const k = ctx.ip; seen.set(k, (seen.get(k) || 0) + 1); await next(); });
app.use(async (ctx, next) => {
  await next();
  if (ctx.body && typeof ctx.body === 'object') {
    const text = JSON.stringify(ctx.body);
    ctx.set('etag', `"${crypto.createHash('sha1').update(text).digest('base64')}"`);
    ctx.type = 'json';
    ctx.body = text;
  }
});

router.get('/user/:id', async (ctx) => { ctx.body = await profile(Number(ctx.params.id)); });
router.get('/feed/:id', async (ctx) => {
  const me = await getUser(Number(ctx.params.id));
  const friends = await Promise.all(me.friends.map((f) => profile(f)));
  ctx.body = { user: me.name, feed: friends.flatMap((f) => f.posts).sort((a, b) => b.likes - a.likes).slice(0, 30) };
});
router.get('/top', async (ctx) => {
  const n = Math.min(Number(ctx.query.n) || 20, 200);
  const scored = await Promise.all(posts.slice(0, 400).map(async (p) => ({ id: p.id, score: await likesOf(p) })));
  ctx.body = scored.sort((a, b) => b.score - a.score).slice(0, n);
});
app.use(router.routes()).use(router.allowedMethods());

const server = app.listen(Number(process.argv[2] ?? process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ listening: server.address().port, pid: process.pid }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
