// graphql-http's own GraphQL-over-HTTP audit against a running storygraph API.
// Usage: node audit.mjs <url> [token]. Prints one JSON line per audit and a summary line;
// exits 0 when every audit ran (the Python test decides what counts as passing).
import { auditServer } from 'graphql-http';

const [url, token] = process.argv.slice(2);
const fetchFn = (input, init = {}) => {
  const headers = new Headers(init.headers || {});
  if (token) headers.set('authorization', `Bearer ${token}`);
  return fetch(input, { ...init, headers });
};
const results = await auditServer({ url, fetchFn });
const counts = { ok: 0, warn: 0, error: 0 };
for (const r of results) {
  counts[r.status] += 1;
  let detail = null;
  if (r.status !== 'ok') {
    detail = { reason: r.reason };
    if (r.response) {
      detail.status = r.response.status;
      detail.contentType = r.response.headers.get('content-type');
      try { detail.body = (await r.response.text()).slice(0, 400); } catch { detail.body = null; }
    }
  }
  console.log(JSON.stringify({ id: r.id, name: r.name, status: r.status, detail }));
}
console.log(JSON.stringify({ summary: counts, total: results.length }));
