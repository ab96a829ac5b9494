// graphql-sse's own client (distinct connections mode) subscribing to a running storygraph API.
// Usage: node sse.mjs <url> <token|-> <query> <variables JSON> <max events> <timeout ms>
// Prints one JSON line per happening: {"event":"connected"}, {"event":"next","payload":…},
// {"event":"error",…}, {"event":"complete"}; exits after max events, an error or completion.
import { createClient, NetworkError } from 'graphql-sse';

const [url, token, query, variables, maxEvents, timeoutMs] = process.argv.slice(2);
const say = (line) => console.log(JSON.stringify(line));
const client = createClient({
  url,
  retryAttempts: 0,
  headers: token && token !== '-' ? { authorization: `Bearer ${token}` } : {},
  on: { connected: () => say({ event: 'connected' }) },
});
const timer = setTimeout(() => { say({ event: 'timeout' }); client.dispose(); process.exit(0); },
  Number(timeoutMs));
let seen = 0;
const finish = () => { clearTimeout(timer); client.dispose(); process.exit(0); };
client.subscribe({ query, variables: JSON.parse(variables) }, {
  next: (payload) => {
    say({ event: 'next', payload });
    seen += 1;
    if (seen >= Number(maxEvents)) finish();
  },
  error: async (err) => {
    const line = { event: 'error', message: String(err?.message ?? err) };
    if (err instanceof NetworkError && err.response) {
      line.status = err.response.status;
      try { line.body = await err.response.text(); } catch { line.body = null; }
    } else if (Array.isArray(err)) {
      line.errors = err;
    }
    say(line);
    finish();
  },
  complete: () => { say({ event: 'complete' }); finish(); },
});
