"use strict";
// The graph view (docs/rules/story-graph.md): an outer time ring with events, stage arcs and
// same-day clusters, entities inside, event→entity change lines and entity→entity relation
// lines. It reads every version once (graphReplay), lays out the union keyed by id (stable
// while replaying) and shows a record moment T in the browser: a version counts when
// recorded <= T < retracted, the rule of asOf. Corrections go through the GraphQL mutations;
// the list and the graph share one selection; scope, moment and selection live in the URL.

const $ = (id) => document.getElementById(id);
const R = 1000;
const ARC_STEP = 5;  // model px between a stage arc's marks (each ARC_WIDTH across)
const DENSE_DAY = 4; // a day with this many events is drawn as one cluster point...
const FEW_EVENTS = 40; // ...once the scope has more events than this (fewer: each its own point)
const STACK_GAP = 0.05; // events closer than this angle (radians) are stacked outwards
const TOKEN_KEY = "storygraph.token";
const REPLAY_Q = `query($s: String!, $from: DateTime, $to: DateTime) {
  graphReplay(scope: $s, from: $from, to: $to) { scope tables } }`;
// a click reads the details of the object clicked only (its neighbourhood), never the scope
const DETAIL_Q = `query($s: String!, $ids: [ID!]!, $a: DateTime) {
  storyObjects(scope: $s, ids: $ids, asOf: $a, includeRemoved: true) {
    events { id seq title description at recordedAt by { kind id } }
    entities { id seq name kind description status recordedAt by { kind id } userFields confirmedFields }
    relations { id seq fromId toId type reason confirmation removed recordedAt by { kind id } why }
    changes { id eventId entityId kind note }
    summaries { id text intervalStart intervalEnd eventIds entityIds }
    references { id ownerKind ownerId sourceId sourceVersion locator
                 excerpt { available text warning withdrawnAt } }
    suggestions { id seq kind targetKind targetId field currentValue proposedValue reason status }
  } }`;

const S = {
  scope: "", tables: null, moments: [], index: 0, T: 0, sel: null, cy: null,
  ents: new Map(), rels: new Map(), evs: new Map(), chg: [], sums: new Map(), days: new Map(),
  evNode: new Map(), shown: new Map(), openKinds: new Set(), overview: false, viewAll: false, detailCache: new Map(), listItems: new Map(),
  detailTicket: 0, notice: null,
};
const viz = (window.viz = { S, timings: {}, ready: false, renderedMoment: null });

// ---------------------------------------------------------------- GraphQL
// { get: true }: a read as of a past moment goes as GET, so the browser keeps the answer and
// revalidates it by ETag (If-None-Match -> 304); the API computes each past answer once.
async function gql(query, variables, { get = false } = {}) {
  const headers = get ? {} : { "content-type": "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = "Bearer " + token;
  const r = get
    ? await fetch("/graphql?" + new URLSearchParams({ query, variables: JSON.stringify(variables) }),
      { headers, cache: "no-cache" })
    : await fetch("/graphql", { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  let body;
  try { body = await r.json(); } catch { throw new GqlError("HTTP", `HTTP ${r.status}`); }
  if (body.errors && body.errors.length) {
    const e = body.errors[0];
    throw new GqlError(e.extensions?.code || (r.status === 401 ? "UNAUTHENTICATED" : "ERROR"), e.message);
  }
  return body.data;
}
class GqlError extends Error { constructor(code, message) { super(message); this.code = code; } }
function readable(err) {
  if (err.code === "CONFLICT") return "Changed since you looked (CONFLICT): " + err.message +
    " — the current version is shown now; make your edit again on it.";
  if (err.code === "UNAUTHENTICATED" || err.code === "FORBIDDEN")
    return `${err.code}: ${err.message} — enter a bearer token that may use this scope.`;
  return `${err.code || "ERROR"}: ${err.message}`;
}

// ---------------------------------------------------------------- time helpers
const iso = (ms) => new Date(ms).toISOString();
// record times carry microseconds; the moment T (ms) covers everything recorded in its ms
const asOfArg = (ms) => iso(ms).slice(0, 23) + "999Z";
const pad = (n) => String(n).padStart(2, "0");
const localDay = (ms) => { const d = new Date(ms); return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`; };
// the page shows times in the browser's zone and says which (UTC±hh:mm), never a bare clock
const zoneOf = (ms) => { const o = -new Date(ms).getTimezoneOffset(), a = Math.abs(o); return `UTC${o < 0 ? "−" : "+"}${pad(Math.floor(a / 60))}:${pad(a % 60)}`; };
const clock = (ms) => { const d = new Date(ms); return `${localDay(ms)} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`; };
const localTime = (ms) => `${clock(ms)} ${zoneOf(ms)}`;
// a record moment: two writes within one second are two moments, so a moment shows its
// milliseconds when it has any (the slider, its ticks, "changed since")
const momentTime = (ms) => `${clock(ms)}${ms % 1000 ? "." + String(ms % 1000).padStart(3, "0") : ""} ${zoneOf(ms)}`;
const shortTime = (ms) => clock(ms).slice(0, 16);  // list rows: their heading names the zone
const at = (versions, T) => { for (let i = versions.length - 1; i >= 0; i--) { const v = versions[i]; if (v.rec <= T && T < v.ret) return v; } return null; };
const onRing = (a, r) => ({ x: r * Math.cos(a), y: r * Math.sin(a) });
function hash(s) { let h = 2166136261; for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); } return (h >>> 0) / 4294967296; }

// ---------------------------------------------------------------- model from tables
function buildModel(t) {
  const group = (rows, make) => { const m = new Map(); for (const r of rows) { const v = make(r); (m.get(v.id) || m.set(v.id, []).get(v.id)).push(v); } for (const vs of m.values()) vs.sort((a, b) => a.seq - b.seq); return m; };
  S.ents = group(t.entities, (r) => ({ id: r[0], seq: r[1], name: r[2], kind: r[3], status: r[4], rec: r[5], ret: r[6], by: r[7], via: r[8] }));
  S.rels = group(t.relations, (r) => ({ id: r[0], seq: r[1], from: r[2], to: r[3], type: r[4], conf: r[5], removed: r[6], rec: r[7], ret: r[8], by: r[9], via: r[10] }));
  S.evs = group(t.events, (r) => ({ id: r[0], seq: r[1], title: r[2], at: r[3], story: r[4], rec: r[5], ret: r[6], by: r[7], via: r[8] }));
  // signals: their versions replay like the rest; an open commitment is marked on
  // the time ring at its due time (dueOf), the chain is drawn by signals.js
  S.sigs = group(t.signals || [], (r) => ({ id: r[0], seq: r[1], kind: r[2], status: r[3], text: r[4], due: r[5], dk: r[6], dc: r[7], dr: r[8], rec: r[9], ret: r[10], by: r[11], who: r[12], what: r[13], via: r[14] }));
  S.chg = t.changes.map((r) => ({ id: r[0], ev: r[1], en: r[2], kind: r[3], rec: r[4] }));
  S.sums = new Map(t.summaries.map((r) => [r[0], { id: r[0], start: r[1], end: r[2], text: r[3], rec: r[4] }]));
  S.moments = t.moments.length ? t.moments.slice() : [];
  if (!S.moments.length) {
    const all = [...S.ents.values(), ...S.rels.values(), ...S.evs.values()].flat().map((v) => v.rec);
    if (all.length) S.moments = [Math.max(...all)];
  }
}

// ---------------------------------------------------------------- layout (union, once)
function layout() {
  const pos = new Map();
  const evLast = [...S.evs.values()].map((vs) => vs[vs.length - 1]);
  const times = evLast.map((e) => e.at);
  const sumTimes = [...S.sums.values()].flatMap((s) => [s.start, s.end]);
  const dues = [...S.sigs.keys()].map(dueOf).filter((d) => d !== null);
  const t0 = Math.min(...times, ...sumTimes, ...dues), t1 = Math.max(...times, ...sumTimes, ...dues);
  const span = t1 - t0 || 1;
  S.span = { t0, t1 };  // the ring's first and last instant (its start and end marks)
  const angle = (t) => -Math.PI / 2 + 2 * Math.PI * 0.94 * (Math.min(Math.max(t, t0), t1) - t0) / span;
  // events by local day; dense days become one cluster point (display only, never an entity)
  const byDay = new Map();
  for (const e of evLast.sort((a, b) => a.at - b.at)) (byDay.get(localDay(e.at)) || byDay.set(localDay(e.at), []).get(localDay(e.at))).push(e);
  S.days = new Map(); S.evNode = new Map(); S.folded = new Set();
  let lastAngle = -Infinity, level = 0;
  for (const [day, evs] of byDay) {
    if (evs.length >= DENSE_DAY && evLast.length > FEW_EVENTS) {
      const id = "day:" + day, mean = evs.reduce((s, e) => s + e.at, 0) / evs.length;
      S.days.set(id, { id, day, events: evs.map((e) => e.id) });
      pos.set(id, onRing(angle(mean), R));
      for (const e of evs) S.evNode.set(e.id, id);
    } else {
      // events at one instant are one mark with their count; a click unfolds them, stacked
      // outwards from the ring (instantMembers); events at nearly one moment are stacked too
      const byAt = new Map();
      for (const e of evs) (byAt.get(e.at) || byAt.set(e.at, []).get(e.at)).push(e);
      for (const [t, same] of byAt) {
        const a = angle(t);
        level = a - lastAngle < STACK_GAP ? level + 1 : 0;
        if (!level) lastAngle = a;
        if (same.length < 2) { pos.set(same[0].id, onRing(a, R + 34 * level)); S.evNode.set(same[0].id, same[0].id); continue; }
        const id = "at:" + t;
        S.days.set(id, { id, day: momentTime(t), events: same.map((e) => e.id), instant: true });
        pos.set(id, onRing(a, R + 34 * level));
        same.forEach((e, k) => { pos.set(e.id, onRing(a, R + 34 * (level + k + 1))); S.evNode.set(e.id, id); S.folded.add(e.id); });
      }
    }
  }
  // an open commitment's due time: a mark just inside the ring, where that time falls on it
  for (const id of S.sigs.keys()) { const d = dueOf(id); if (d !== null) pos.set(DUE + id, onRing(angle(d), R - 46)); }
  // stage arcs just outside the ring
  S.arcs = new Map();
  for (const s of S.sums.values()) {
    const a0 = angle(s.start), a1 = Math.max(angle(s.end), a0 + 0.01);
    // marks closer than their size, so the arc reads as one band, as the legend draws it
    const n = Math.min(1200, Math.max(2, Math.ceil((a1 - a0) * (R + 70) / ARC_STEP)));
    const dots = [];
    for (let i = 0; i <= n; i++) { const id = `arc:${s.id}:${i}`; dots.push(id); pos.set(id, onRing(a0 + (a1 - a0) * i / n, R + 70)); }
    S.arcs.set(s.id, dots);
    pos.set(s.id, onRing((a0 + a1) / 2, R + 110));
  }
  // entities: near the mean angle of the events that change them, busiest innermost
  const evAngles = new Map(), degree = new Map();
  for (const c of S.chg) {
    const e = S.evs.get(c.ev); if (!e) continue;
    const a = angle(e[e.length - 1].at);
    const acc = evAngles.get(c.en) || { x: 0, y: 0 }; acc.x += Math.cos(a); acc.y += Math.sin(a); evAngles.set(c.en, acc);
    degree.set(c.en, (degree.get(c.en) || 0) + 1);
  }
  for (const vs of S.rels.values()) { const r = vs[vs.length - 1]; degree.set(r.from, (degree.get(r.from) || 0) + 1); degree.set(r.to, (degree.get(r.to) || 0) + 1); }
  const ids = [...S.ents.keys()].sort((a, b) => (degree.get(b) || 0) - (degree.get(a) || 0) || (a < b ? -1 : 1));
  S.rank = ids;  // most connected first: the order names appear in as one zooms in
  const want = (id) => { const v = evAngles.get(id); return v && (v.x || v.y) ? Math.atan2(v.y, v.x) : 2 * Math.PI * hash(id); };
  const N = ids.length, inner = N < 30 ? 0.3 * R : 0.1 * R, outer = 0.8 * R;
  S.groups = new Map();
  if (S.groupBy === "kind" || S.overview) placeByKind(ids, pos, inner, outer);
  else placeRings(ids, pos, want, inner, outer);
  let x1 = -R, y1 = -R, x2 = R, y2 = R;
  for (const p of pos.values()) { x1 = Math.min(x1, p.x); y1 = Math.min(y1, p.y); x2 = Math.max(x2, p.x); y2 = Math.max(y2, p.y); }
  const m = 30;  // half a node and a label
  for (const id of S.sums.keys()) {  // a stage's label hangs below it, at most 220 wide
    const p = pos.get(id); if (!p) continue;
    x1 = Math.min(x1, p.x - 110); x2 = Math.max(x2, p.x + 110); y2 = Math.max(y2, p.y + 90);
  }
  S.bounds = { x1: x1 - m, y1: y1 - m, x2: x2 + m, y2: y2 + m };
  return pos;
}
// entities on rings inside the time ring, busiest innermost, each near its events' angle
// the due time of a signal that is (or was) a commitment with one, else null
const DUE = "due:";
// a signal's list row: kind and status, its words, the agenda's decision (and due time)
const decisionOf = (v) => v.dk ? (v.dk === "ignored" || v.dk === "reported" ? `${v.dk}: ${v.dr}` : `${v.dk} ${v.dc}`) : "undecided";
const signalLine = (v) => `[${v.kind} · ${v.status}] ${v.text} — ${decisionOf(v)}${v.due !== null ? ` · due ${shortTime(v.due)}` : ""}`;
function dueOf(id) { const v = S.sigs.get(id).findLast((x) => x.kind === "commitment" && x.due !== null); return v ? v.due : null; }
function placeRings(ids, pos, want, inner, outer) {
  const N = ids.length;
  const spacing = Math.min(240, Math.max(22, Math.sqrt(Math.PI * (outer * outer - inner * inner) / Math.max(N, 1)) * 0.9));
  let r = inner, i = 0;
  while (i < N) {
    const cap = Math.max(1, Math.floor(2 * Math.PI * r / spacing));
    const ring = ids.slice(i, i + cap).sort((a, b) => want(a) - want(b));
    const base = ring.length ? want(ring[0]) : 0;
    ring.forEach((id, j) => pos.set(id, onRing(base + 2 * Math.PI * j / ring.length, r)));
    i += cap; r += spacing;
  }
}
// grouped (a cluster layout): the entities of one kind share a sector of the disk, busiest
// innermost, and a group node names the kind and its size at the sector's outer edge
function placeByKind(ids, pos, inner, outer) {
  const kinds = new Map();
  for (const id of ids) { const k = S.ents.get(id).at(-1).kind || "—"; (kinds.get(k) || kinds.set(k, []).get(k)).push(id); }
  let a0 = -Math.PI / 2;
  for (const [kind, members] of [...kinds].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))) {
    const width = 2 * Math.PI * members.length / ids.length, gap = Math.min(0.12, width * 0.2), span = width - gap;
    const spacing = Math.max(22, Math.sqrt((outer * outer - inner * inner) * span / 2 / members.length) * 0.9);
    let r = Math.max(inner, spacing / Math.max(span, 0.05)), i = 0;
    while (i < members.length) {
      const row = members.slice(i, i + Math.max(1, Math.floor(span * r / spacing)));
      row.forEach((id, j) => pos.set(id, onRing(a0 + gap / 2 + span * (j + 0.5) / row.length, r)));
      i += row.length; r += spacing;
    }
    const id = "group:" + kind;
    S.groups.set(id, { id, kind, members, label: `${kind} (${members.length})` });
    pos.set(id, onRing(a0 + width / 2, r + 20));
    a0 += width;
  }
}

// ---------------------------------------------------------------- cytoscape
// Each property a selector sets is applied to every element it matches before the first
// frame, so the common selectors set few: label typography lives with the labelled states,
// arrows, dashes and dots only where the graph is small (class "arrow"; at scale, "fast").
const SELECTED = "#06b6d4";
const STYLE = [
  { selector: "node.entity", style: { "width": 18, "height": 18, "background-color": "#60a5fa", "border-width": 1, "border-color": "#1e3a8a" } },
  // candidates: grey fill, solid border (a dashed border on 1,000 nodes costs a few hundred ms a paint)
  { selector: "node.candidate", style: { "background-color": "#e5e7eb", "border-color": "#6b7280" } },
  { selector: "node.event", style: { "width": 11, "height": 11, "background-color": "#f59e0b" } },
  { selector: "node.day", style: { "width": 26, "height": 26, "background-color": "#fde68a", "border-width": 2, "border-color": "#b45309",
      "label": "data(count)", "text-valign": "center", "font-size": 11 } },
  // one instant's events: one mark with their count, unfolded (stacked outwards) on a click
  // the overview at scale: a kind's entities are drawn once its mark is clicked
  { selector: "node.entity.collapsed", style: { "display": "none" } },
  { selector: "node.day.instant", style: { "shape": "round-rectangle", "width": 22, "height": 18 } },
  { selector: "node.event.folded", style: { "display": "none" } },
  { selector: "node.event.folded.unfolded", style: { "display": "element" } },
  { selector: "node.stage", style: { "shape": "round-rectangle", "width": 22, "height": 12, "background-color": "#a78bfa" } },
  // a stage's label is cut short with an ellipsis at 220 wide, and the fitted view leaves
  // room for it, so the edge of the view never cuts it (its whole text is in the details)
  { selector: "node.stage.labelled", style: { "text-wrap": "ellipsis", "text-max-width": 220 } },
  { selector: "node.arc", style: { "width": 12, "height": 12, "background-color": "#a78bfa", "border-width": 0, "events": "no" } },
  { selector: "edge", style: { "width": 1, "curve-style": "haystack", "line-color": "#9ca3af" } },
  { selector: "edge.arrow", style: { "curve-style": "straight", "target-arrow-shape": "triangle", "arrow-scale": 0.6, "target-arrow-color": "#9ca3af" } },
  { selector: "edge.suggested.arrow", style: { "line-style": "dashed" } },
  // at scale suggested lines are lighter instead of dashed (dashes cost ~0.7 s a paint for 2,000 lines)
  { selector: "edge.suggested.fast", style: { "line-color": "#c4c9d1" } },
  { selector: "edge.confirmed", style: { "line-color": "#059669", "target-arrow-color": "#059669", "width": 2.5 } },
  { selector: "edge.rejected", style: { "line-color": "#dc2626", "target-arrow-color": "#dc2626" } },
  { selector: "edge.rejected.arrow", style: { "line-style": "dotted" } },
  { selector: "edge.removed", style: { "opacity": 0.3 } },
  { selector: "edge.change", style: { "line-color": "#f59e0b", "opacity": 0.35 } },
  // at scale change lines are drawn for the selected or hovered object only (readable, fast)
  { selector: "edge.change.fast", style: { "display": "none" } },
  { selector: "edge.change.fast.near", style: { "display": "element", "opacity": 0.8 } },
  { selector: ".labelled, .hover, :selected", style: { "label": "data(label)", "font-size": 12, "min-zoomed-font-size": 6 } },
  { selector: "node.labelled, node.hover, node:selected", style: { "text-valign": "bottom", "text-margin-y": 3,
      "text-background-color": "#fff", "text-background-opacity": 0.8, "text-background-padding": 1 } },
  { selector: "edge.labelled, edge.hover, edge:selected", style: { "font-size": 11, "text-rotation": "autorotate", "color": "#374151",
      "text-background-color": "#fff", "text-background-opacity": 0.85, "text-background-padding": 1 } },
  { selector: "node.day.hover, node.day:selected", style: { "label": "data(label)", "text-valign": "center", "text-margin-y": 0, "text-background-opacity": 0, "font-size": 11 } },
  // the selection is cyan with a halo: no standing uses it (confirmed green, rejected red,
  // suggested grey, entity blue, candidate grey, event amber, stage violet)
  { selector: "node:selected", style: { "border-width": 4, "border-color": SELECTED, "overlay-color": SELECTED, "overlay-opacity": 0.25, "overlay-padding": 6, "z-index": 10 } },
  { selector: "edge:selected", style: { "line-color": SELECTED, "target-arrow-color": SELECTED, "width": 4, "opacity": 1, "z-index": 10,
      "underlay-color": SELECTED, "underlay-opacity": 0.3, "underlay-padding": 4 } },
  { selector: ".near", style: { "opacity": 1 } },
  // level of detail: named entities (the most connected, more as one zooms in, the selection's
  // neighbourhood); the font size is set per zoom (labelStyle) so a name stays readable
  { selector: "node.named", style: { "label": "data(label)", "text-valign": "bottom", "text-margin-y": 3, "min-zoomed-font-size": 0,
      "text-background-color": "#fff", "text-background-opacity": 0.8, "text-background-padding": 1 } },
  { selector: "node.group", style: { "label": "data(label)", "shape": "round-rectangle", "width": 8, "height": 8, "background-opacity": 0,
      "font-size": 40, "font-weight": "bold", "color": "#1e3a8a", "text-valign": "center", "events": "no", "min-zoomed-font-size": 0 } },
  // the overview's mark of a kind is its name on a button-like label, and the label takes the
  // click (text-events): one small node per kind, no shape drawn, nothing else restyled
  { selector: "node.group.bubble", style: { "events": "yes", "text-events": "yes", "text-background-color": "#dbeafe",
      "text-background-opacity": 1, "text-background-shape": "round-rectangle", "text-background-padding": 10,
      "text-border-width": 3, "text-border-color": "#1e3a8a", "text-border-opacity": 1 } },
  // an open commitment at its due time: a rose diamond inside the ring
  { selector: "node.due", style: { "shape": "diamond", "width": 16, "height": 16, "background-color": "#e11d48", "border-width": 1, "border-color": "#881337" } },
  { selector: ".faded", style: { "opacity": 0.12, "label": "" } },
  { selector: ".filtered", style: { "display": "none" } },
  { selector: ".gone", style: { "display": "none" } },
];

const isBig = () => S.rels.size + S.chg.length > 1500;
// the change lines of one node, created on first need at scale (hidden ones are never built)
function changeEdges(node) {
  const todo = S.chgAt.get(node.id());
  if (todo) {
    S.chgAt.delete(node.id());
    const add = todo.filter((e) => S.cy.getElementById(e.data.id).empty());
    if (add.length) S.cy.batch(() => {
      for (const el of S.cy.add(add.map((e) => ({ ...e, data: { ...e.data } })))) {
        const on = S.vis && S.vis.has(el.id());
        if (!on) el.addClass("gone");
        S.shown.set(el.id(), on ? keyOf({}) : null);
      }
    });
  }
  return node.connectedEdges(".change");
}
// the time ring is an SVG circle under the canvas, kept on the model circle of radius R
function placeRing() {
  const z = S.cy.zoom(), p = S.cy.pan(), c = $("ring");
  c.setAttribute("cx", p.x); c.setAttribute("cy", p.y); c.setAttribute("r", Math.max(0, R * z));
  placeRingMarks(p, R * z);
}
// where time starts and ends on the ring, and which way it runs: "start" just right of the
// top, "end" just left of it (time runs clockwise over 94% of the circle), an arrowhead on
// the ring after the start pointing the way time goes
const END_ANGLE = -Math.PI / 2 + 2 * Math.PI * 0.94;
function placeRingMarks(p, r) {
  const start = $("ringStart"), end = $("ringEnd"), arrow = $("ringArrow");
  if (!S.span || !Number.isFinite(S.span.t0) || r <= 0) { start.textContent = end.textContent = ""; arrow.setAttribute("d", ""); return; }
  const at = (a, rr) => ({ x: p.x + rr * Math.cos(a), y: p.y + rr * Math.sin(a) });
  const s0 = at(-Math.PI / 2, r - 12), e0 = at(END_ANGLE, r - 12);
  start.setAttribute("x", s0.x + 6); start.setAttribute("y", s0.y + 4);
  end.setAttribute("x", e0.x - 6); end.setAttribute("y", e0.y + 4);
  start.textContent = `start ${shortTime(S.span.t0)} ⟳`;
  end.textContent = `end ${shortTime(S.span.t1)}`;
  const a = -Math.PI / 2 + 0.05, tip = at(a + 0.025, r), base = at(a, r);
  const n = { x: Math.cos(a), y: Math.sin(a) }, size = 7;  // n: outward; clockwise is (-n.y, n.x)
  const back = { x: base.x, y: base.y };
  arrow.setAttribute("d", `M${tip.x},${tip.y} L${back.x + n.x * size},${back.y + n.y * size} L${back.x - n.x * size},${back.y - n.y * size} Z`);
}
// fit the ring and every laid-out position (known without asking Cytoscape for bounding
// boxes, which would compute every element's rendered style before the first frame)
const FIT_PAD = 20, MIN_ZOOM = 0.05, MAX_ZOOM = 6;
function fitZoom(w, h) {
  const { x1, y1, x2, y2 } = S.bounds;
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Math.min((w - 2 * FIT_PAD) / (x2 - x1), (h - 2 * FIT_PAD) / (y2 - y1))));
}
function fitAll() {
  const cy = S.cy, { x1, y1, x2, y2 } = S.bounds;
  const w = cy.width(), h = cy.height(), zoom = fitZoom(w, h);
  S.fitZoom = zoom;
  cy.viewport({ zoom, pan: { x: (w - zoom * (x1 + x2)) / 2, y: (h - zoom * (y1 + y2)) / 2 } });
}
const keyOf = (s) => `${s.label}|${s.cls || ""}|${s.count || ""}`;
function elements(pos) {
  const shown = (S.shown = new Map()), big = isBig();
  const els = [];
  const few = S.ents.size <= 80, fewEv = S.evs.size <= 40;
  for (const [id, vs] of S.ents) { const v = vs[vs.length - 1]; els.push({ group: "nodes", data: { id, label: v.name, kind: "entity" }, position: pos.get(id), classes: `entity ${v.status}${few ? " labelled" : ""}${collapsed(id) ? " collapsed" : ""}` }); }
  const evLabel = fewEv ? ringLabels(pos) : new Map();
  for (const [id, vs] of S.evs) if (S.evNode.get(id) === id || S.folded.has(id)) { const v = vs[vs.length - 1], where = S.folded.has(id) ? "bottom" : evLabel.get(id); els.push({ group: "nodes", data: { id, label: v.title, kind: "event" }, position: pos.get(id), classes: `event${where ? " labelled" : ""}${where === "top" ? " labelTop" : ""}${S.folded.has(id) ? " folded" : ""}` }); }
  for (const id of S.sigs.keys()) if (pos.has(DUE + id)) { const v = S.sigs.get(id).at(-1); els.push({ group: "nodes", data: { id: DUE + id, label: `due · ${v.what || v.text}`, kind: "due", signal: id }, position: pos.get(DUE + id), classes: "due labelled" }); }
  for (const [id, g] of S.groups) els.push({ group: "nodes", data: { id, label: g.label, kind: "group", count: String(g.members.length) }, position: pos.get(id), classes: S.overview ? "group bubble" : "group", selectable: false, grabbable: false });
  for (const [id, d] of S.days) els.push({ group: "nodes", data: { id, label: `${d.day} · ${d.events.length} events`, count: String(d.events.length), kind: "day" }, position: pos.get(id), classes: d.instant ? "day instant" : "day" });
  for (const [id, s] of S.sums) {
    els.push({ group: "nodes", data: { id, label: s.text.slice(0, 40), kind: "summary" }, position: pos.get(id), classes: "stage labelled" });
    for (const dot of S.arcs.get(id)) els.push({ group: "nodes", data: { id: dot, kind: "arc", stage: id }, position: pos.get(dot), classes: "arc", selectable: false, grabbable: false });
  }
  // at scale the relation lines are drawn under the graph (drawRelations); a relation becomes a
  // graph edge when it is selected (relationEdge)
  if (!big) for (const id of S.rels.keys()) els.push(relationElement(id, false));
  // at scale a change line is created when its entity or event is hovered or selected (lazyChanges)
  S.chgAt = new Map();
  for (const c of S.chg) if (S.ents.has(c.en) && S.evNode.has(c.ev)) {
    const el = { group: "edges", data: { id: c.id, source: S.evNode.get(c.ev), target: c.en, label: c.kind, kind: "change" }, classes: big ? "change fast" : "change" };
    if (!big) { els.push(el); continue; }
    for (const n of [el.data.source, el.data.target]) (S.chgAt.get(n) || S.chgAt.set(n, []).get(n)).push(el);
  }
  // what the newest moment shows, as applyMoment would key it
  for (const e of els) {
    const d = e.data, k = d.kind;
    if (k === "entity") { const v = S.ents.get(d.id).at(-1); shown.set(d.id, keyOf({ label: v.name, cls: v.status })); }
    else if (k === "relation") { const v = S.rels.get(d.id).at(-1); shown.set(d.id, keyOf({ label: v.type, cls: v.conf + (v.removed ? " removed" : "") })); }
    else if (k === "event") shown.set(d.id, keyOf({ label: d.label }));
    else if (k === "day") shown.set(d.id, keyOf({ label: d.label, count: d.count }));
    else if (k === "summary") shown.set(d.id, keyOf({ label: d.label }));
    else if (k === "arc" || k === "change") shown.set(d.id, keyOf({}));
    else if (k === "group") shown.set(d.id, keyOf({ label: d.label }));
    else if (k === "due") shown.set(d.id, keyOf({ label: d.label }));
  }
  return els;
}

// Where the ring's event titles go on a small graph: below its mark, else above it, else
// nowhere (the title shows on hover and selection, and in the list) — never over another
// title, a stage's label, a due mark's or the ring's start and end marks. Boxes are estimated in model units at the font
// size drawn (a CJK character about 1 em, any other about 0.55 em); events in time order.
function ringLabels(pos) {
  const fs = S.ents.size <= 80 ? 30 : 12, h = fs * 1.3;
  const width = (text) => { let w = 0; for (const c of text) w += c.charCodeAt(0) > 0x2e7f ? fs : fs * 0.55; return w + 4; };
  const taken = [];
  const box = (p, text, dy) => ({ x1: p.x - width(text) / 2, x2: p.x + width(text) / 2, y1: p.y + dy, y2: p.y + dy + h });
  const free = (b) => !taken.some((q) => b.x1 < q.x2 && q.x1 < b.x2 && b.y1 < q.y2 && q.y1 < b.y2);
  // the ring's start and end marks (placeRingMarks: 11 px on screen, just inside the ring)
  const z = S.fitZoom || 1, mark = (text) => text.length * 6.5 / z;
  if (S.span && Number.isFinite(S.span.t0)) {
    const s0 = onRing(-Math.PI / 2, R - 12 / z), e0 = onRing(END_ANGLE, R - 12 / z);
    const sw = mark(`start ${shortTime(S.span.t0)} ⟳`), ew = mark(`end ${shortTime(S.span.t1)}`);
    taken.push({ x1: s0.x + 6 / z, x2: s0.x + 6 / z + sw, y1: s0.y - 8 / z, y2: s0.y + 8 / z });
    taken.push({ x1: e0.x - 6 / z - ew, x2: e0.x - 6 / z, y1: e0.y - 8 / z, y2: e0.y + 8 / z });
  }
  for (const [id, st] of S.sums) { const p = pos.get(id); if (p) taken.push(box(p, st.text.slice(0, 40), 10)); }
  for (const id of S.sigs.keys()) { const p = pos.get(DUE + id), v = S.sigs.get(id).at(-1); if (p) taken.push(box(p, `due · ${v.what || v.text}`, 10)); }
  const out = new Map();
  const evs = [...S.evs.entries()].filter(([id]) => S.evNode.get(id) === id && !S.folded.has(id))
    .sort((a, b) => a[1].at(-1).at - b[1].at(-1).at);
  for (const [id, vs] of evs) {
    const p = pos.get(id), text = vs.at(-1).title || "";
    if (!p) continue;
    const below = box(p, text, 8), above = box(p, text, -8 - h);
    if (free(below)) { taken.push(below); out.set(id, "bottom"); }
    else if (free(above)) { taken.push(above); out.set(id, "top"); }
  }
  return out;
}

// where there is room (a small graph) every relation line carries its type
const FEW_RELATIONS = 60;
function relationElement(id, big) {
  const v = S.rels.get(id).at(-1), named = !big && S.rels.size <= FEW_RELATIONS;
  return { group: "edges", data: { id, source: v.from, target: v.to, label: v.type, kind: "relation" },
           classes: `relation ${v.conf}${v.removed ? " removed" : ""}${big ? " fast" : " arrow"}${named ? " labelled" : ""}` };
}
// At scale (thousands of lines) the relations are not graph elements until they are needed:
// Cytoscape styles, measures and draws every element on its first frame, and 2,000 relation
// edges were over a third of it. Their lines are drawn on a canvas under the graph instead,
// one path per standing, in the graph's own coordinates (kept in step with zoom and pan), for
// the moment shown. Selecting a relation (a click on its line, the list, a link) makes it a
// graph edge, selectable and styled like any other.
const REL_STROKE = { suggested: ["#c4c9d1", 1], confirmed: ["#059669", 2.5], rejected: ["#dc2626", 1] };
function drawRelations() {
  const c = $("relLayer");
  c.hidden = !S.relLayer;
  if (!S.relLayer) return;
  const w = c.clientWidth, h = c.clientHeight;
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
  const ctx = c.getContext("2d"), z = S.cy.zoom(), p = S.cy.pan();
  ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, w, h);
  ctx.setTransform(z, 0, 0, z, p.x, p.y);
  const groups = new Map(), drawn = new Set();
  for (const id of S.rels.keys()) {
    const s = S.vis && S.vis.get(id);
    if (!s || (S.pass && !S.pass.has(id)) || collapsed(s.v.from) || collapsed(s.v.to)) continue;
    const key = s.v.conf + (s.v.removed ? " removed" : "") + (S.focus && !S.focus.has(id) ? " faded" : "");
    (groups.get(key) || groups.set(key, []).get(key)).push(s.v);
    drawn.add(id);
  }
  for (const [key, list] of groups) {
    const [color, width] = REL_STROKE[key.split(" ")[0]] || REL_STROKE.suggested;
    ctx.beginPath();
    for (const v of list) { const a = S.pos.get(v.from), b = S.pos.get(v.to); ctx.moveTo(a.x, a.y); ctx.lineTo(b.x, b.y); }
    ctx.strokeStyle = color; ctx.lineWidth = width; ctx.globalAlpha = key.endsWith("faded") ? 0.08 : key.endsWith("removed") ? 0.3 : 1;
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  viz.drawnRelations = drawn;
}
// the relation whose drawn line passes within 5 screen pixels of a model point, nearest first
function relationAt(pt) {
  const tol = 5 / S.cy.zoom();
  let best = null, bestD = tol;
  for (const id of S.rels.keys()) {
    const s = S.vis && S.vis.get(id);
    if (!s) continue;
    const a = S.pos.get(s.v.from), b = S.pos.get(s.v.to), dx = b.x - a.x, dy = b.y - a.y;
    const t = Math.max(0, Math.min(1, ((pt.x - a.x) * dx + (pt.y - a.y) * dy) / (dx * dx + dy * dy || 1)));
    const d = Math.hypot(pt.x - a.x - t * dx, pt.y - a.y - t * dy);
    if (d < bestD) { best = id; bestD = d; }
  }
  return best;
}
// a relation as a graph edge (at scale, on first need), in the state of the moment shown
function relationEdge(id) {
  if (!S.relLayer || !S.rels.has(id) || S.cy.getElementById(id).nonempty()) return;
  const el = S.cy.add(relationElement(id, true));
  S.shown.set(id, undefined);
  syncElement(el, S.vis || new Map());
}

// Positions come with the elements (layout() above): this layout only signals that they are
// in place. Cytoscape's "preset" would set each position again (~0.1 s at 1,000 nodes).
function KeepLayout(options) { this.options = options; }
KeepLayout.prototype.run = function () {
  this.emit("layoutstart"); this.emit("layoutready"); this.emit("layoutstop"); return this;
};
KeepLayout.prototype.stop = function () { return this; };
cytoscape("layout", "keep", KeepLayout);

function draw() {
  const t0 = performance.now();
  const pos = layout();
  if (S.cy) S.cy.destroy();
  S.fitZoom = fitZoom($("cy").clientWidth, $("cy").clientHeight);
  S.focus = null; S.pass = null;
  const big = isBig();
  const els = elements(pos);
  const t1 = performance.now();
  S.cy = window.cy = cytoscape({
    container: $("cy"), elements: els, style: styleFor(labelSize(S.fitZoom)), layout: { name: "keep" },
    minZoom: MIN_ZOOM, maxZoom: MAX_ZOOM, wheelSensitivity: 0.3, pixelRatio: 1, textureOnViewport: big, hideEdgesOnViewport: big, motionBlur: false,
    boxSelectionEnabled: false, autoungrabify: true, selectionType: "single",
  });
  if (S.ents.size <= 80) S.cy.style().selector("node").style("font-size", 30).selector("edge").style("font-size", 22).update();  // readable at fit
  // Cytoscape (3.35) builds its layered textures synchronously on the first frame (every
  // element drawn into a texture, then into a layer): at scale that doubles the first paint.
  // Marked as already started, the cache queues layers for idle time and the first frame
  // draws the elements directly (pinned vendor version; without the field nothing changes).
  const lyr = big && S.cy.renderer() && S.cy.renderer().data && S.cy.renderer().data.lyrTxrCache;
  if (lyr && lyr.firstGet === true) lyr.firstGet = false;
  viz.timings.layoutMs = t1 - t0; viz.timings.cyMs = performance.now() - t1;
  S.pos = pos; S.relLayer = big;
  S.cy.on("viewport", () => { placeRing(); drawRelations(); scheduleLabels(); });
  S.cy.on("resize", drawRelations);
  S.cy.on("tap", "node, edge", (e) => { const d = e.target.data(); select(d.kind === "arc" ? d.stage : d.kind === "due" ? d.signal : d.id, "graph"); });
  // a tap on the background unselects everything once the tap is handled: pick the line after
  S.cy.on("tap", (e) => { if (e.target === S.cy && S.relLayer) { const id = relationAt(e.position); if (id) setTimeout(() => select(id, "graph"), 0); } });
  S.cy.on("mouseover", "node, edge", (e) => { e.target.addClass("hover"); if (e.target.isNode()) changeEdges(e.target).addClass("near"); });
  S.cy.on("mouseout", "node, edge", (e) => { e.target.removeClass("hover"); if (e.target.isNode() && !e.target.selected()) e.target.connectedEdges(".change").removeClass("near"); });
}

// ---------------------------------------------------------------- one moment
function stateAt(T) {
  const vis = new Map(); // id -> {label, cls} for visible elements
  const showRemoved = $("showRemoved").checked;
  for (const [id, vs] of S.ents) { const v = at(vs, T); if (v) vis.set(id, { label: v.name, cls: v.status, v }); }
  const evVis = new Set();
  for (const [id, vs] of S.evs) { const v = at(vs, T); if (v) { evVis.add(id); vis.set(id, { label: v.title, v }); } }  // clustered ones too (list, detail)
  for (const [id, d] of S.days) { const n = d.events.filter((e) => evVis.has(e)).length; if (n) vis.set(id, { label: `${d.day} · ${n} events`, count: String(n) }); }
  for (const [id, g] of S.groups || []) vis.set(id, { label: g.label });
  for (const [id, s] of S.sums) if (s.rec <= T) { vis.set(id, { label: s.text.slice(0, 40) }); for (const dot of S.arcs.get(id)) vis.set(dot, {}); }
  for (const [id, vs] of S.rels) {
    const v = at(vs, T);
    if (v && vis.has(v.from) && vis.has(v.to) && (!v.removed || showRemoved)) vis.set(id, { label: v.type, cls: v.conf + (v.removed ? " removed" : ""), v });
  }
  for (const c of S.chg) if (c.rec <= T && evVis.has(c.ev) && vis.has(c.en)) vis.set(c.id, {});
  // signals believed at T (list, detail); an open commitment with a due time is marked
  for (const [id, vs] of S.sigs) {
    const v = at(vs, T); if (!v) continue;
    vis.set(id, { label: v.text, v });
    if (v.kind === "commitment" && v.status === "open" && v.due !== null) vis.set(DUE + id, { label: `due · ${v.what || v.text}` });
  }
  S.evVis = evVis;
  return vis;
}

const CLASS_SETS = { entity: ["main", "candidate"], relation: ["suggested", "confirmed", "rejected", "removed"] };
// one element to the state `vis` gives it (hidden when absent), touched only when it changed
function syncElement(el, vis) {
  const id = el.id();
  const s = vis.get(id), prev = S.shown.get(id);
  if (!s) { if (prev !== null) { el.addClass("gone"); S.shown.set(id, null); } return; }
  const key = keyOf(s);
  if (prev === key) return;
  if (prev === null || prev === undefined) el.removeClass("gone");
  if (s.label !== undefined && el.data("label") !== s.label) el.data("label", s.label);
  if (s.count !== undefined) el.data("count", s.count);
  const kind = el.data("kind");
  if (CLASS_SETS[kind]) { el.removeClass(CLASS_SETS[kind].join(" ")); el.addClass(s.cls); }
  S.shown.set(id, key);
}
function applyMoment(index) {
  const t = performance.now();
  S.index = Math.max(0, Math.min(index, S.moments.length - 1));
  S.T = S.moments[S.index];
  $("moment").value = String(S.index);
  $("momentLabel").textContent = S.moments.length ? `${momentTime(S.T)} (${S.index + 1}/${S.moments.length})` : "";
  const vis = stateAt(S.T);
  S.vis = vis;
  S.cy.batch(() => { S.cy.elements().forEach((el) => syncElement(el, vis)); });
  drawRelations();
  updateList(vis);
  const total = [...vis.keys()];
  $("status").textContent = `${[...S.ents.keys()].filter((k) => vis.has(k)).length} entities · ${S.evVis.size} events · ${[...S.rels.keys()].filter((k) => vis.has(k)).length} relations`;
  viz.renderedMoment = S.index;
  viz.timings.lastApplyMs = performance.now() - t;
  if (S.sel) markSelected(S.sel);
  writeUrl();
  return total.length;
}

// ---------------------------------------------------------------- names by level of detail
// At scale the most connected entities are named at the fitted zoom, more as one zooms in
// (x1.8: up to MORE_NAMED, x3.5: all), plus the selection's neighbourhood; below x3.5 a name
// that would overlap one already placed (in rank order) waits for more zoom. A name is drawn
// at LABEL_PX on screen whatever the zoom. A small graph names everything (draw).
const LABEL_PX = 13, TOP_NAMED = 40, MORE_NAMED = 250;
const labelSize = (zoom) => Math.round(LABEL_PX / (zoom || 1) * 10) / 10;
const styleFor = (size) => [...STYLE, { selector: "node.named, node.entity.hover, node.event.hover, node.entity:selected, node.event:selected",
  style: { "font-size": size, "min-zoomed-font-size": 0, "text-margin-y": size / 4 } },
  // an event whose title had no room below its mark carries it above (ringLabels)
  { selector: "node.event.labelTop", style: { "text-valign": "top", "text-margin-y": -3 } }];
// the first `limit` ids (in order) whose names, at zoom z, do not overlap a name already taken
function spreadOut(ids, limit, z) {
  const taken = [], out = [], h = (2 * LABEL_PX + 2) / z;  // a label box with its background
  for (const id of ids) {
    if (out.length >= limit) break;
    const p = S.pos.get(id), name = S.ents.get(id).at(-1).name || "";
    if (!p) continue;
    const w = (name.length * LABEL_PX * 0.75 + 8) / z;
    if (taken.some((q) => Math.abs(q.x - p.x) < (q.w + w) / 2 && Math.abs(q.y - p.y) < h)) continue;
    taken.push({ x: p.x, y: p.y, w }); out.push(id);
  }
  return out;
}
function scheduleLabels() { clearTimeout(S.lodTimer); S.lodTimer = setTimeout(applyLabels, 100); }
function applyLabels() {
  if (!S.cy || !S.rank || S.ents.size <= 80) return;
  const z = S.cy.zoom(), ratio = z / (S.fitZoom || z);
  const shown = S.rank.filter((id) => S.vis?.has(id) && (!S.pass || S.pass.has(id)));
  const want = new Set(ratio < 3.5 ? spreadOut(shown, ratio < 1.8 ? TOP_NAMED : MORE_NAMED, z) : shown);
  if (S.focus) for (const id of S.focus) if (S.ents.has(id)) want.add(id);
  S.cy.batch(() => { for (const id of S.rank) { const el = S.cy.getElementById(id), on = want.has(id); if (on !== el.hasClass("named")) el.toggleClass("named", on); } });
  const size = labelSize(z);
  if (S.labelSize !== size) { S.labelSize = size; S.cy.style().fromJson(styleFor(size)).update(); }
  viz.labels = { zoom: z, named: want.size, size };
}

// ---------------------------------------------------------------- filters: the list and the graph
// The list's text filter, the kind and the standing filter hide what does not match in the
// list AND in the graph. An entity matches by name, kind and status; a relation when both ends
// match (or its type holds the text) and its confirmation is the standing asked for (then only
// entities on such relations stay); an event by its title.
const ENTITY_STANDINGS = new Set(["main", "candidate"]);
const filterState = () => ({ q: $("filter").value.trim().toLowerCase(), kind: $("kindFilter").value, standing: $("standingFilter").value });
function passing(f) {
  if (!f.q && !f.kind && !f.standing || !S.vis) return null;
  const pass = new Set(), vis = S.vis, relStanding = !!f.standing && !ENTITY_STANDINGS.has(f.standing);
  for (const id of S.ents.keys()) {
    const s = vis.get(id);
    if (s && (!f.kind || s.v.kind === f.kind) && (!f.standing || relStanding || s.v.status === f.standing) &&
        (!f.q || `${s.label} ${s.v.kind} ${s.v.status}`.toLowerCase().includes(f.q))) pass.add(id);
  }
  const ends = new Set();
  for (const id of S.rels.keys()) {
    const s = vis.get(id);
    if (!s || (relStanding && s.v.conf !== f.standing)) continue;
    const byType = !!f.q && s.v.type.toLowerCase().includes(f.q) && (!f.kind || [s.v.from, s.v.to].every((e) => vis.get(e)?.v.kind === f.kind));
    if (byType || (pass.has(s.v.from) && pass.has(s.v.to))) { pass.add(id); ends.add(s.v.from); ends.add(s.v.to); }
  }
  if (relStanding) { for (const id of S.ents.keys()) if (!ends.has(id)) pass.delete(id); }
  for (const id of ends) pass.add(id);
  for (const id of S.evs.keys()) { const s = vis.get(id); if (s && (!f.q || s.label.toLowerCase().includes(f.q))) pass.add(id); }
  return pass;
}
const FILTERED_KINDS = new Set(["entity", "relation", "event"]);
function applyGraphFilter(pass) {
  if (!S.cy || (!pass && !S.pass)) { S.pass = pass; return; }
  S.pass = pass;
  S.cy.batch(() => S.cy.nodes().add(S.cy.edges(".relation")).forEach((el) => {
    const out = !!pass && FILTERED_KINDS.has(el.data("kind")) && !pass.has(el.id());
    if (out !== el.hasClass("filtered")) el.toggleClass("filtered", out);
  }));
  drawRelations();
}
// the kinds of the scope, for the kind filter (kept when the scope still has the one chosen)
function fillKinds() {
  const kinds = [...new Set([...S.ents.values()].map((vs) => vs.at(-1).kind).filter(Boolean))].sort();
  const sel = $("kindFilter"), keep = sel.value;
  sel.innerHTML = `<option value="">any kind</option>` + kinds.map((k) => `<option value="${esc(k)}">${esc(k)}</option>`).join("");
  sel.value = kinds.includes(keep) ? keep : "";
}

// ---------------------------------------------------------------- the selection's neighbourhood
// Selecting an entity keeps it, its relations, the entities at their other ends and the events
// that change it at full strength and fades the rest; any other selection fades nothing.
const NEVER_FADED = new Set(["arc", "group", "summary", "day"]);
function focusOn(id) {
  const vis = S.vis || new Map();
  let focus = null;
  if (id && S.ents.has(id) && vis.has(id)) {
    focus = new Set([id]);
    for (const rid of S.rels.keys()) {
      const s = vis.get(rid);
      if (s && (s.v.from === id || s.v.to === id)) { focus.add(rid); focus.add(s.v.from); focus.add(s.v.to); }
    }
    for (const c of S.chg) if (c.en === id && vis.has(c.id)) { focus.add(c.id); focus.add(S.evNode.get(c.ev)); }
  }
  if (!focus && !S.focus) return;
  S.focus = focus;
  S.cy.batch(() => S.cy.elements().forEach((el) => {
    const fade = !!focus && !focus.has(el.id()) && !NEVER_FADED.has(el.data("kind"));
    if (fade !== el.hasClass("faded")) el.toggleClass("faded", fade);
  }));
  drawRelations(); applyLabels();
}

// ---------------------------------------------------------------- grouping
// "group by kind" lays the entities out in one sector per kind (placeByKind); the choice is in
// the URL. Positions change, so the graph is drawn again at the moment shown.
function regroup() {
  S.groupBy = $("groupKind").checked ? "kind" : null;
  if (!S.tables) return;
  draw(); S.shown = new Map(); S.cy.elements().forEach((el) => S.shown.set(el.id(), undefined));
  applyMoment(S.index); fitAll(); placeRing(); drawRelations(); applyLabels();
  viz.grouped = S.groupBy;
}
$("groupKind").addEventListener("change", regroup);

// ---------------------------------------------------------------- the text list
function buildList() {
  const ul = $("list"); ul.innerHTML = ""; S.listItems = new Map(); S.listGroups = [];
  const frag = document.createDocumentFragment();
  const group = (title) => { const li = document.createElement("li"); li.className = "group"; li.textContent = title; li.setAttribute("role", "presentation"); frag.appendChild(li); S.listGroups.push({ li, items: [] }); };
  const item = (id, text) => { const li = document.createElement("li"); li.textContent = text; li.dataset.id = id; li.id = "li-" + id; li.setAttribute("role", "option"); li.tabIndex = -1; frag.appendChild(li); S.listItems.set(id, li); S.listGroups.at(-1).items.push(li); };
  group("Stages");
  [...S.sums.values()].sort((a, b) => a.start - b.start).forEach((s) => item(s.id, `${localDay(s.start)} – ${localDay(s.end)}: ${s.text}`));
  group(`Events (${zoneOf(Date.now())})`);
  [...S.evs.values()].map((vs) => vs[vs.length - 1]).sort((a, b) => a.at - b.at).forEach((e) => item(e.id, `${shortTime(e.at)} ${e.title}`));
  group("Entities");
  [...S.ents.values()].map((vs) => vs[vs.length - 1]).sort((a, b) => a.name.localeCompare(b.name)).forEach((e) => item(e.id, e.name));
  group("Relations");
  for (const id of S.rels.keys()) item(id, "");
  group("Signals");
  for (const id of S.sigs.keys()) item(id, "");
  ul.appendChild(frag);
  S.listText = new Map();
}
function updateList(vis) {
  const name = (id) => vis.get(id)?.label || S.ents.get(id)?.at(-1).name || id;
  for (const [id, li] of S.listItems) {
    const s = vis.get(id);
    li.classList.toggle("gone", !s);
    if (!s) continue;
    let text = null;
    if (S.ents.has(id)) text = `${s.label} (${s.v.kind}, ${s.v.status})`;
    else if (S.rels.has(id)) text = `${name(s.v.from)} —${s.v.type}→ ${name(s.v.to)} [${s.v.conf}${s.v.removed ? ", removed" : ""}]`;
    else if (S.evs.has(id)) text = `${shortTime(s.v.at)} ${s.label}`;
    else if (S.sigs.has(id)) text = signalLine(s.v);
    if (text !== null && S.listText.get(id) !== text) { li.textContent = text; S.listText.set(id, text); }
  }
  applyFilter();
}
function applyFilter() {
  const f = filterState(), pass = passing(f);
  for (const [id, li] of S.listItems) {
    li.hidden = pass && (S.ents.has(id) || S.rels.has(id) || S.evs.has(id)) ? !pass.has(id)
      : !!f.q && !li.textContent.toLowerCase().includes(f.q);
  }
  hideEmptyGroups();
  applyGraphFilter(pass);
}
// a group heading shows only while one of its rows does
function hideEmptyGroups() {
  for (const g of S.listGroups || []) g.li.hidden = !g.items.some((li) => !li.hidden && !li.classList.contains("gone"));
}
function visibleItems() { return [...S.listItems.values()].filter((li) => !li.hidden && !li.classList.contains("gone")); }
$("list").addEventListener("click", (e) => { const li = e.target.closest("li[data-id]"); if (li) select(li.dataset.id, "list"); });
$("list").addEventListener("keydown", (e) => {
  const items = visibleItems(); if (!items.length) return;
  const cur = items.indexOf(document.activeElement);
  let next = null;
  if (e.key === "ArrowDown") next = items[Math.min(cur + 1, items.length - 1)];
  else if (e.key === "ArrowUp") next = items[Math.max(cur - 1, 0)];
  else if (e.key === "Home") next = items[0];
  else if (e.key === "End") next = items[items.length - 1];
  else if ((e.key === "Enter" || e.key === " ") && cur >= 0) { select(items[cur].dataset.id, "list"); e.preventDefault(); return; }
  if (next) { e.preventDefault(); next.focus(); select(next.dataset.id, "list"); }
});
$("list").addEventListener("focus", (e) => { if (e.target === $("list")) { const li = S.sel && S.listItems.get(S.sel); (li && !li.classList.contains("gone") ? li : visibleItems()[0])?.focus(); } });
$("filter").addEventListener("input", applyFilter);
$("kindFilter").addEventListener("change", applyFilter);
$("standingFilter").addEventListener("change", applyFilter);

// ---------------------------------------------------------------- selection + detail
function markSelected(id) {
  S.cy.$(":selected").unselect();
  S.cy.edges(".near").removeClass("near");
  relationEdge(id);
  const el = S.cy.getElementById(id);
  if (el.nonempty()) { el.select(); if (el.isNode()) changeEdges(el).addClass("near"); }
  focusOn(id);
  for (const li of document.querySelectorAll('#list li[aria-selected="true"]')) li.setAttribute("aria-selected", "false");
  const li = S.listItems.get(id);
  if (li) { li.setAttribute("aria-selected", "true"); $("list").setAttribute("aria-activedescendant", li.id); }
}
// ---------------------------------------------------------------- the overview at scale
// At OVERVIEW_AT entities and more the view opens as an overview: the entities grouped by
// kind, one mark per kind naming it and its size, and no entity drawn until its kind's mark
// is clicked (or "every node"), so the fitted view is never a hairball. The URL's view=all
// opens every node at once.
const OVERVIEW_AT = 500;
const collapsed = (id) => !!S.overview && S.ents.has(id) && !S.openKinds.has(S.ents.get(id).at(-1).kind || "—");
function openKind(group) {
  if (!group || S.openKinds.has(group.kind)) return;
  S.openKinds.add(group.kind);
  S.cy.batch(() => { for (const m of group.members) S.cy.getElementById(m).removeClass("collapsed"); S.cy.getElementById(group.id).removeClass("bubble"); });
  drawRelations(); applyLabels(); overviewStatus();
}
function overviewStatus() {
  const b = $("everyNode");
  b.hidden = !S.overview;
  if (S.overview) $("overviewNote").textContent = `overview: ${S.ents.size} entities in ${S.groups.size} kinds, ${S.openKinds.size} drawn — click a kind`;
  $("overviewNote").hidden = !S.overview;
  viz.overview = S.overview ? [...S.openKinds] : null;
}
function everyNode() { S.overview = false; S.viewAll = true; regroup(); overviewStatus(); writeUrl(); }
$("everyNode").addEventListener("click", everyNode);
// a click on an instant's mark unfolds its events on the ring (and a second folds them)
function unfold(id) {
  const d = S.days.get(id);
  if (!d || !d.instant) return;
  const members = S.cy.collection(d.events.map((e) => S.cy.getElementById(e)));
  if (id === S.sel && members.hasClass("unfolded")) members.removeClass("unfolded");
  else members.addClass("unfolded");
}
function select(id, from) {
  if (S.overview && S.groups.has(id)) { openKind(S.groups.get(id)); return; }
  if (S.overview && S.ents.has(id) && collapsed(id)) openKind([...S.groups.values()].find((g) => g.members.includes(id)));
  unfold(id);
  if (id !== S.sel) S.notice = null;
  S.sel = id;
  markSelected(id);
  if (from === "list") { const el = S.cy.getElementById(id); if (el.nonempty() && !el.hasClass("gone")) S.cy.animate({ center: { eles: el } }, { duration: 200 }); }
  else { const li = S.listItems.get(id); if (li) li.scrollIntoView({ block: "nearest" }); }
  writeUrl();
  showDetail(id);
}

// the details of a click read the object clicked (and what its details show: its relations,
// their other ends, its changes and events, its references and suggestions) as known at the
// moment: one small read per object and moment, kept for the page's life (storyObjects).
const DETAIL_CACHE_MAX = 500;
async function detailGraph(ids) {
  const key = `${S.scope}|${S.T}|${ids.join(",")}`;
  if (S.detailCache.size >= DETAIL_CACHE_MAX) S.detailCache.clear();
  if (!S.detailCache.has(key)) S.detailCache.set(key, gql(DETAIL_Q, { s: S.scope, ids, a: asOfArg(S.T) }).then((d) => d.storyObjects));
  try { return await S.detailCache.get(key); } catch (e) { S.detailCache.delete(key); throw e; }
}

const esc = (s) => String(s ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
const link = (id, text) => `<a data-go="${esc(id)}">${esc(text)}</a>`;
// who made a version, in words: a person, a concern (its runs are named concern:…, and the
// review of its conversation sup-<concern>-m<N>) or a run
const by = (b) => {
  if (!b) return "";
  const kind = String(b.kind).toLowerCase();
  if (kind === "user") return `person ${b.id}`;
  if (kind === "person") return `${b.id} (answered via a concern)`;
  const reviewed = /^sup-(con[-_].+)-m\d+$/.exec(b.id);
  if (reviewed) return `concern ${reviewed[1]} (its conversation reviewed by run ${b.id})`;
  return b.id.startsWith("concern") ? `concern ${b.id.replace(/^concern[:-]/, "")}` : `run ${b.id}`;
};
const byLabel = (label) => { if (!label) return ""; const i = label.indexOf(":"); return by({ kind: label.slice(0, i), id: label.slice(i + 1) }); };

function refsHtml(g, id) {
  const refs = g.references.filter((r) => r.ownerId === id);
  if (!refs.length) return "<h3>References</h3><p class='meta'>none</p>";
  return "<h3>References</h3>" + refs.map((r) => {
    const ex = r.excerpt;
    const where = `<div class="meta">${esc(r.sourceId)} @ ${esc(r.sourceVersion)} · ${esc(r.locator)}</div>`;
    return ex.available ? `${where}<blockquote class="excerpt">${esc(ex.text)}</blockquote>`
      : `${where}<p class="unavailable">version unavailable${ex.warning ? ": " + esc(ex.warning) : ""}</p>`;
  }).join("");
}
function suggestionsHtml(g, id) {
  const sug = g.suggestions.filter((s) => s.targetId === id && s.status === "PENDING");
  if (!sug.length) return "<h3>Pending suggestions</h3><p class='meta'>none</p>";
  return "<h3>Pending suggestions</h3>" + sug.map((s) =>
    `<div class="suggestion"><b>${esc(s.field)}</b> (${s.kind.toLowerCase()}): <del>${esc(s.currentValue)}</del> → <ins>${esc(s.proposedValue)}</ins>
     <div class="meta">${esc(s.reason)}</div>
     <span class="actions"><button data-act="acceptSuggestion" data-id="${esc(s.id)}">Accept</button><button data-act="dismissSuggestion" data-id="${esc(s.id)}">Dismiss</button></span></div>`).join("");
}
const knowledgeHtml = (kind, id) => `<h3>Use it</h3><span class="actions">
  <button data-act="previewSave" data-kind="${kind}" data-id="${esc(id)}">Save to knowledge…</button>
  <button data-act="previewDiscuss" data-kind="${kind}" data-id="${esc(id)}">Continue discussion…</button></span><div id="preview"></div>`;
// a heading with its list, or nothing at all when the list is empty
const listHtml = (title, items) => items.length ? `<h3>${esc(title)}</h3><ul>${items.map((i) => `<li>${i}</li>`).join("")}</ul>` : "";
function versionsHtml(vs, fmt) {
  return "<h3>History</h3><ol class='history'>" + vs.map((v) => `<li>v${v.seq} ${localTime(v.rec)}${v.ret < 2e14 ? " → " + localTime(v.ret) : " (current)"}${v.by ? " by " + esc(byLabel(v.by)) : ""}: ${esc(fmt(v))}</li>`).join("") + "</ol>";
}

// what a person may do to a relation in its standing: a removed one can only be restored;
// a confirmed one is not offered Confirm again, a rejected one not Reject
function relationActions(r) {
  if (r.removed) return ["restore"];
  const c = r.confirmation.toLowerCase();
  return [...(c === "confirmed" ? [] : ["confirm"]), ...(c === "rejected" ? [] : ["reject"]), "remove"];
}

// The detail panel is drawn by the newest request only (a slower, older one is dropped), and a
// correction's outcome (done, or why it was refused) stays on it until another object is chosen.
async function showDetail(id) {
  const ticket = ++S.detailTicket, box = $("detail");
  delete box.dataset.shown;
  await drawDetail(id, () => ticket === S.detailTicket && S.sel === id);
  if (ticket !== S.detailTicket || S.sel !== id) return;
  showOutcome();
  box.dataset.shown = `${id}@${S.T}`;
}
function showOutcome() {
  const box = $("detail"), n = S.notice;
  let p = box.querySelector(".outcome");
  if (!n || n.id !== S.sel) { if (p) p.remove(); return; }
  if (!p) { p = document.createElement("div"); box.prepend(p); }
  p.className = "outcome " + n.cls; p.setAttribute("role", "status"); p.innerHTML = n.html;
}
async function drawDetail(id, current) {
  const box = $("detail");
  // a removed relation stays selectable (its detail offers Restore) while its line is hidden
  const present = S.vis && (S.vis.has(id) || (S.rels.has(id) && !!at(S.rels.get(id), S.T)));
  if (present && S.sigs.has(id)) { await window.vizSignals.drawChain(id, current); return; }
  const day = S.days.get(id);
  if (day) {
    const what = day.instant ? "events at one instant, unfolded on the ring (display only)" : "same-day cluster (display only, not an entity)";
    box.innerHTML = `<h2>${esc(day.day)}</h2><p class="meta">${what}</p><h3>Events</h3><ul>` +
      day.events.filter((e) => S.evVis.has(e)).map((e) => `<li>${link(e, at(S.evs.get(e), S.T).title)}</li>`).join("") + "</ul>";
    return;
  }
  if (!present) {
    box.innerHTML = `<p class="error">The selected object ${esc(id)} is not in the graph at ${esc(localTime(S.T))}${$("follow").checked ? "" : " (pinned target kept)"}.</p>` +
      `<button data-act="unpin">Clear selection</button>`;
    return;
  }
  box.innerHTML = "<p class='meta'>loading…</p>";
  let g;
  try { g = await detailGraph([id]); } catch (e) { if (current()) box.innerHTML = `<p class="error">${esc(readable(e))}</p>`; return; }
  if (!current()) return;
  const nameOf = (eid) => g.entities.find((e) => e.id === eid)?.name || eid;
  let html = "";
  if (S.ents.has(id)) {
    const e = g.entities.find((x) => x.id === id);
    if (!e) { box.innerHTML = `<p class="error">${esc(id)} is not readable at this moment.</p>`; return; }
    const rels = g.relations.filter((r) => (r.fromId === id || r.toId === id) && !r.removed);
    const evs = g.changes.filter((c) => c.entityId === id);
    html = `<h2>${esc(e.name)}</h2><div class="meta">entity · ${esc(e.kind)} · ${e.status.toLowerCase()} · v${e.seq} by ${esc(by(e.by))}${e.userFields.length ? " · edited by a person: " + esc(e.userFields.join(", ")) : ""}</div>
      <h3>Description</h3><p class="description">${esc(e.description) || "<i>none</i>"}</p>
      <details id="editBox"><summary>Edit description</summary><textarea id="editText">${esc(e.description)}</textarea>
      <button data-act="updateEntity" data-id="${esc(id)}" data-seq="${e.seq}">Save description</button></details>
      ${refsHtml(g, id)}${suggestionsHtml(g, id)}
      <h3>Neighbours</h3><ul>${rels.map((r) => `<li>${r.fromId === id ? "→" : "←"} ${link(r.id, r.type)} ${link(r.fromId === id ? r.toId : r.fromId, nameOf(r.fromId === id ? r.toId : r.fromId))} [${r.confirmation.toLowerCase()}]</li>`).join("") || "<li class='meta'>no relations</li>"}</ul>
      <h3>Events</h3><ul>${evs.map((c) => `<li>${c.kind.toLowerCase()} in ${link(c.eventId, g.events.find((x) => x.id === c.eventId)?.title || c.eventId)}</li>`).join("") || "<li class='meta'>none</li>"}</ul>
      <div id="history"><h3>History</h3><p class="meta">loading…</p></div>${knowledgeHtml("ENTITY", id)}`;
    box.innerHTML = html;
    gql(`query($s: String!, $id: ID!, $a: DateTime) { entity(scope: $s, id: $id, asOf: $a) { history { seq name description status recordedAt retractedAt by { kind id } why } } }`,
      { s: S.scope, id, a: asOfArg(S.T) }).then((d) => {
      if (S.sel !== id) return;
      $("history").innerHTML = "<h3>History</h3><ol class='history'>" + d.entity.history.map((h) =>
        `<li>v${h.seq} ${esc(localTime(Date.parse(h.recordedAt)))} by ${esc(by(h.by))}: ${esc(h.name)} — ${esc(h.description)}${h.why ? ` <span class="meta">(${esc(h.why)})</span>` : ""}</li>`).join("") + "</ol>";
    }).catch((e) => { if ($("history")) $("history").innerHTML = `<p class="error">${esc(readable(e))}</p>`; });
    return;
  }
  if (S.rels.has(id)) {
    const r = g.relations.find((x) => x.id === id);
    if (!r) { box.innerHTML = `<p class="error">${esc(id)} is not readable at this moment.</p>`; return; }
    html = `<h2>${link(r.fromId, nameOf(r.fromId))} —${esc(r.type)}→ ${link(r.toId, nameOf(r.toId))}</h2>
      <div class="meta">relation · <b class="confirmation">${r.confirmation.toLowerCase()}</b>${r.removed ? " · <b>removed</b>" : ""} · v${r.seq} by ${esc(by(r.by))}</div>
      <h3>Reason</h3><p>${esc(r.reason) || "<i>none</i>"}</p>
      <span class="actions">${relationActions(r).map((a) =>
        `<button data-act="relation" data-op="${a}" data-id="${esc(id)}" data-seq="${r.seq}">${a[0].toUpperCase() + a.slice(1)}</button>`).join("")}</span>
      ${refsHtml(g, id)}${suggestionsHtml(g, id)}
      ${versionsHtml(S.rels.get(id), (v) => `${v.conf}${v.removed ? ", removed" : ""}`)}${knowledgeHtml("RELATION", id)}`;
  } else if (S.evs.has(id)) {
    const e = g.events.find((x) => x.id === id);
    if (!e) { box.innerHTML = `<p class="error">${esc(id)} is not readable at this moment.</p>`; return; }
    const ch = g.changes.filter((c) => c.eventId === id);
    html = `<h2>${esc(e.title)}</h2><div class="meta">event · ${esc(localTime(Date.parse(e.at)))} · v${e.seq} by ${esc(by(e.by))}</div>
      <h3>Description</h3><p>${esc(e.description) || "<i>none</i>"}</p>${refsHtml(g, id)}
      <h3>Changes (neighbours)</h3><ul>${ch.map((c) => `<li>${c.kind.toLowerCase()} ${link(c.entityId, nameOf(c.entityId))}${c.note ? ": " + esc(c.note) : ""}</li>`).join("") || "<li class='meta'>none</li>"}</ul>
      ${suggestionsHtml(g, id)}${versionsHtml(S.evs.get(id), (v) => v.title)}${knowledgeHtml("EVENT", id)}`;
    const via = at(S.evs.get(id), S.T)?.via;
    if (via) { box.innerHTML = html; await window.vizSignals.drawChainOfConcern(via, current); return; }
  } else if (S.sums.has(id)) {
    const s = g.summaries.find((x) => x.id === id);
    if (!s) { box.innerHTML = `<p class="error">${esc(id)} is not readable at this moment.</p>`; return; }
    html = `<h2>Stage ${esc(localDay(Date.parse(s.intervalStart)))} – ${esc(localDay(Date.parse(s.intervalEnd)))}</h2>
      <p>${esc(s.text)}</p>${refsHtml(g, id)}
      ${listHtml("Events", s.eventIds.map((e) => link(e, g.events.find((x) => x.id === e)?.title || e)))}
      ${listHtml("Entities", s.entityIds.map((e) => link(e, nameOf(e))))}${knowledgeHtml("SUMMARY", id)}`;
  } else if (S.chg.some((c) => c.id === id)) {
    const c = g.changes.find((x) => x.id === id);
    html = c ? `<h2>${esc(c.kind.toLowerCase())}</h2><p>${link(c.eventId, g.events.find((x) => x.id === c.eventId)?.title || c.eventId)} → ${link(c.entityId, nameOf(c.entityId))}</p><p>${esc(c.note)}</p>${refsHtml(g, id)}`
      : `<p class="error">${esc(id)} is not readable at this moment.</p>`;
  }
  box.innerHTML = html;
}

// ---------------------------------------------------------------- corrections (GraphQL mutations)
async function act(button) {
  const d = button.dataset, box = $("detail");
  const note = (html, cls = "meta") => { S.notice = { id: S.sel, html, cls }; showOutcome(); };
  const objects = d.kind ? [{ kind: d.kind, id: d.id }] : null;
  button.disabled = true;
  try {
    if (d.act === "unpin") { S.sel = null; S.notice = null; $("follow").checked = true; markSelected(""); box.innerHTML = ""; writeUrl(); return; }
    if (d.act === "relation") {
      await gql(`mutation($s: String!, $id: ID!, $v: Int) { r: ${d.op}Relation(scope: $s, id: $id, seenVersion: $v, why: "graph view") { id confirmation removed } }`,
        { s: S.scope, id: d.id, v: Number(d.seq) });
      await refresh(`${d.op} done`);
    } else if (d.act === "updateEntity") {
      await gql(`mutation($s: String!, $id: ID!, $v: Int!, $d: String!) { updateEntity(scope: $s, id: $id, seenVersion: $v, edit: { description: $d }, why: "graph view") { id seq } }`,
        { s: S.scope, id: d.id, v: Number(d.seq), d: $("editText").value });
      await refresh("description saved");
    } else if (d.act === "acceptSuggestion" || d.act === "dismissSuggestion") {
      await gql(`mutation($s: String!, $id: ID!) { ${d.act}(scope: $s, id: $id, why: "graph view") { id status } }`, { s: S.scope, id: d.id });
      await refresh(d.act === "acceptSuggestion" ? "suggestion accepted" : "suggestion dismissed");
    } else if (d.act === "previewSave") {
      const p = (await gql(`mutation($s: String!, $o: [ObjectRefInput!], $a: DateTime) { p: previewSaveToKnowledge(scope: $s, objects: $o, asOf: $a) {
        previewId entries { sourceId title action text added warnings link { sourceId version } } readOnly { sourceId locator } } }`,
        { s: S.scope, o: objects, a: asOfArg(S.T) })).p;
      $("preview").innerHTML = `<h3>Preview: save to knowledge (nothing written yet)</h3>` + p.entries.map((e) =>
        `<div><b>${esc(e.action.toLowerCase())}</b> ${esc(e.title)} ${e.link ? `(entry ${esc(e.link.sourceId)} @ ${esc(e.link.version)})` : ""}<pre>${esc(e.text)}</pre>${e.warnings.map((w) => `<p class="unavailable">${esc(w)}</p>`).join("")}</div>`).join("") +
        (p.readOnly.length ? `<p class="meta">read-only external references: ${p.readOnly.map((r) => esc(r.sourceId)).join(", ")}</p>` : "") +
        `<button data-act="confirmSave" data-preview="${esc(p.previewId)}">Confirm save</button>`;
    } else if (d.act === "confirmSave") {
      const o = (await gql(`mutation($p: ID!) { o: confirmSaveToKnowledge(previewId: $p) { repeat entries { id title currentVersion } } }`, { p: d.preview })).o;
      $("preview").innerHTML = `<p class="saved">Saved${o.repeat ? " (already saved before)" : ""}: ${o.entries.map((e) => `${esc(e.title)} (${esc(e.id)} @ ${esc(e.currentVersion)})`).join(", ")}</p>`;
    } else if (d.act === "previewDiscuss") {
      const p = (await gql(`mutation($s: String!, $o: [ObjectRefInput!], $a: DateTime) { p: previewContinueDiscussion(scope: $s, objects: $o, asOf: $a) { previewId title text warnings } }`,
        { s: S.scope, o: objects, a: asOfArg(S.T) })).p;
      $("preview").innerHTML = `<h3>Preview: continue discussion with this context (nothing written yet)</h3><b>${esc(p.title)}</b><pre>${esc(p.text)}</pre>` +
        p.warnings.map((w) => `<p class="unavailable">${esc(w)}</p>`).join("") + `<button data-act="confirmDiscuss" data-preview="${esc(p.previewId)}">Start the conversation</button>`;
    } else if (d.act === "confirmDiscuss") {
      const o = (await gql(`mutation($p: ID!) { o: confirmContinueDiscussion(previewId: $p) { repeat conversation { id title } } }`, { p: d.preview })).o;
      $("preview").innerHTML = `<p class="saved">Conversation started: ${esc(o.conversation.title)} (${esc(o.conversation.id)})${o.repeat ? " — already started before" : ""}. New content is organised by later runs, not taken as confirmed knowledge.</p>`;
    }
  } catch (e) {
    if (e.code === "CONFLICT") { await refresh(null); }
    note(esc(readable(e)), "error");
  } finally { button.disabled = false; }
}
$("detail").addEventListener("click", (e) => {
  const go = e.target.closest("a[data-go]"); if (go) { select(go.dataset.go, "graph"); return; }
  const b = e.target.closest("button[data-act]"); if (b) act(b);
});

// After a write: re-read the versions (a new moment exists); following moves to it, a pin stays.
async function refresh(message) {
  S.detailCache.clear();
  await load({ keepView: true });
  if (S.sel) await showDetail(S.sel);
  if (message) { S.notice = { id: S.sel, html: esc(message), cls: "meta" }; showOutcome(); }
}

// ---------------------------------------------------------------- loading, URL, follow/pin
// The page's state lives in its URL: scope, window, moment (at), selection, grouping, the
// search text (q) and "changed since" (since). A person's discrete step (a selection, a
// search, a changed-since choice, another scope) is a new history entry, so Back and Forward
// walk through the page's own states; the slider's moment only replaces the current entry.
const DISCRETE = ["scope", "from", "to", "sel", "group", "q", "since", "view"];
function readUrl() {
  const q = new URLSearchParams(location.search);
  $("scope").value = q.get("scope") || "demo";
  $("from").value = q.get("from") || ""; $("to").value = q.get("to") || "";
  S.sel = q.get("sel");
  S.groupBy = q.get("group") === "kind" ? "kind" : null; $("groupKind").checked = !!S.groupBy;
  S.viewAll = q.get("view") === "all";
  S.wantAt = q.get("at") ? Date.parse(q.get("at")) : null;
  S.wantSearch = q.get("q") || "";
  S.wantSince = q.get("since") ? Date.parse(q.get("since")) : null;
  $("follow").checked = !S.wantAt;
}
function urlState() {
  const q = new URLSearchParams({ scope: S.scope });
  if ($("from").value) q.set("from", $("from").value);
  if ($("to").value) q.set("to", $("to").value);
  if (!$("follow").checked && S.moments.length) q.set("at", iso(S.T));
  if (S.sel) q.set("sel", S.sel);
  if (S.groupBy) q.set("group", S.groupBy);
  if (S.viewAll) q.set("view", "all");
  const text = window.vizSearch ? window.vizSearch.text : S.wantSearch;
  if (text) q.set("q", text);
  const since = window.vizChanges && window.vizChanges.since !== null ? window.vizChanges.since : S.wantSince;
  if (since !== null && since !== undefined) q.set("since", iso(since));
  return q;
}
function writeUrl() {
  if (S.restoring) return;
  const q = urlState(), now = new URLSearchParams(location.search);
  const moved = DISCRETE.some((k) => (q.get(k) || "") !== (now.get(k) || ""));
  if (moved && viz.ready) history.pushState(null, "", "?" + q.toString());
  else history.replaceState(null, "", "?" + q.toString());
}
// Back / Forward: put the page in the state its URL names (another scope or window is read
// again; the rest is applied to the graph already drawn)
window.addEventListener("popstate", async () => {
  const before = { scope: S.scope, from: $("from").value, to: $("to").value };
  readUrl();
  S.restoring = true;
  try {
    if ($("scope").value !== before.scope || $("from").value !== before.from || $("to").value !== before.to) {
      await load();
    } else if (S.moments.length) {
      const want = S.wantAt ?? S.moments[S.moments.length - 1];
      const i = S.moments.findLastIndex((m) => m <= want);
      applyMoment(i >= 0 ? i : 0);
      S.wantAt = null;
      if (S.sel) { markSelected(S.sel); showDetail(S.sel); }
      else { markSelected(""); $("detail").innerHTML = ""; }
    }
    if (window.vizSearch) await window.vizSearch.restore(S.wantSearch);
    if (window.vizChanges) await window.vizChanges.restore(S.wantSince);
  } finally { S.restoring = false; }
  viz.restored = location.search;
});
function showMessage(text) { const m = $("message"); m.hidden = !text; m.textContent = text || ""; }

// Resolves once the frame that draws the current state has been handed to the screen: the
// animation frame callbacks run (Cytoscape draws in its own, queued before ours), then the
// frame commits, then a task posted from our callback runs.
const painted = () => new Promise((resolve) => requestAnimationFrame(() => {
  const ch = new MessageChannel(); ch.port1.onmessage = () => resolve(); ch.port2.postMessage(null);
}));
async function load({ keepView = false } = {}) {
  const t0 = performance.now();
  S.scope = $("scope").value.trim();
  const bad = ["from", "to"].filter((k) => $(k).value && !/^\d{4}-\d{2}-\d{2}$/.test($(k).value.trim()));
  if (bad.length) { showMessage(`Write ${bad.join(" and ")} as 年-月-日 (YYYY-MM-DD), e.g. 2026-03-17.`); return; }
  const vars = { s: S.scope, from: $("from").value ? new Date($("from").value + "T00:00:00").toISOString() : null,
                 to: $("to").value ? new Date($("to").value + "T23:59:59.999").toISOString() : null };
  $("status").textContent = "loading…";
  let tables;
  const early = window.__replay && window.__replay.scope === vars.s && !vars.from && !vars.to ? window.__replay.answer : null;
  window.__replay = null;
  try { tables = (early ? await early.then((b) => { if (b.errors) throw new GqlError(b.errors[0].extensions?.code || "ERROR", b.errors[0].message); return b.data; }) : await gql(REPLAY_Q, vars)).graphReplay.tables; viz.timings.fetchMs = performance.now() - t0; }
  catch (e) { showMessage(readable(e)); $("status").textContent = ""; if (S.cy) S.cy.elements().addClass("gone"); return; }
  const ids = (t) => ["entities", "relations", "events", "changes", "summaries", "signals"].map((k) => [...new Set(t[k].map((r) => r[0]))].sort().join(",")).join("|");
  const same = keepView && S.cy && S.tables && ids(S.tables) === ids(tables);
  const viewport = keepView && S.cy ? { zoom: S.cy.zoom(), pan: { ...S.cy.pan() } } : null;
  buildModel(tables);
  S.tables = tables;
  if (!same) { S.overview = S.ents.size >= OVERVIEW_AT && !S.viewAll && !S.sel && !S.groupBy; S.openKinds = new Set(); }
  fillKinds(); legendFor(S.ents.size);
  const empty = !S.ents.size && !S.evs.size && !S.sums.size;
  $("ringLayer").style.display = empty ? "none" : "";
  const t1 = performance.now();
  if (same) { S.shown = new Map(); layout(); } else draw();  // layout() refreshes the day/arc maps
  const t2 = performance.now();
  // at scale the list (thousands of rows) is built right after the first paint
  const deferList = isBig();
  if (deferList) { $("list").innerHTML = "<li class='group'>listing…</li>"; S.listItems = new Map(); S.listText = new Map(); }
  else buildList();
  viz.timings.drawMs = t2 - t1; viz.timings.listMs = performance.now() - t2;
  const moment = $("moment");
  moment.max = String(Math.max(0, S.moments.length - 1));
  $("ticks").innerHTML = S.moments.map((m, i) => `<option value="${i}" label="${momentTime(m)}"></option>`).join("");
  if (empty) {
    showMessage(`Nothing is recorded in scope “${S.scope}”${vars.from || vars.to ? " in this window" : ""}: the scope is unknown or empty. No other scope is shown instead.`);
    $("status").textContent = "empty"; $("momentLabel").textContent = ""; $("detail").innerHTML = "";
    viz.ready = true; viz.timings.firstPaint = performance.now(); writeUrl(); return;
  }
  showMessage("");
  let index = S.moments.length - 1;
  if (!$("follow").checked) {
    const want = S.wantAt ?? S.T;
    const i = S.moments.findLastIndex((m) => m <= want);
    index = i >= 0 ? i : 0;
  }
  S.wantAt = null;
  applyMoment(index);
  const t3 = performance.now();
  if (viewport) S.cy.viewport(viewport); else fitAll();
  placeRing(); drawRelations(); applyLabels();
  const t4 = performance.now();
  await painted();
  viz.timings.fitMs = t4 - t3; viz.timings.paintMs = performance.now() - t4;
  if (deferList) setTimeout(() => {
    const t5 = performance.now();
    buildList(); updateList(S.vis); if (S.sel) markSelected(S.sel);
    viz.timings.listMs = performance.now() - t5; viz.listReady = true;
  }, 0);
  else viz.listReady = true;
  viz.timings.loadMs = performance.now() - t0;
  overviewStatus();
  if (!viz.ready) { viz.timings.firstPaint = performance.now(); viz.ready = true; }
  if (S.sel && !keepView) showDetail(S.sel);
}

let pending = null;
$("moment").addEventListener("input", () => {
  const i = Number($("moment").value);
  $("follow").checked = i === S.moments.length - 1 && $("follow").checked;
  if (i !== S.moments.length - 1) $("follow").checked = false;
  if (pending) cancelAnimationFrame(pending);
  pending = requestAnimationFrame(() => { pending = null; applyMoment(i); if (S.sel) showDetail(S.sel); });
});
$("follow").addEventListener("change", () => { if ($("follow").checked && S.moments.length) { applyMoment(S.moments.length - 1); if (S.sel) showDetail(S.sel); } writeUrl(); });
$("showRemoved").addEventListener("change", () => { S.shown = new Map(); applyMoment(S.index); });
$("scope").addEventListener("change", () => {
  // another scope opens at its latest moment, nothing selected; the address names it at once
  S.sel = null; S.notice = null; $("detail").innerHTML = ""; $("follow").checked = true;
  S.scope = $("scope").value.trim(); writeUrl(); live.missed = false;
  load().finally(() => { writeUrl(); subscribe(); });
});
$("load").addEventListener("click", () => load().finally(subscribe));
$("token").value = sessionStorage.getItem(TOKEN_KEY) || "";
$("token").addEventListener("change", () => { const v = $("token").value.trim(); v ? sessionStorage.setItem(TOKEN_KEY, v) : sessionStorage.removeItem(TOKEN_KEY); S.detailCache.clear(); load().finally(subscribe); });
$("zoomIn").onclick = () => S.cy.zoom({ level: S.cy.zoom() * 1.4, renderedPosition: { x: S.cy.width() / 2, y: S.cy.height() / 2 } });
$("zoomOut").onclick = () => S.cy.zoom({ level: S.cy.zoom() / 1.4, renderedPosition: { x: S.cy.width() / 2, y: S.cy.height() / 2 } });
$("fit").onclick = () => fitAll();
// Following: the page subscribes to graphChanged for its scope (graphql-transport-ws, the
// token in connection_init), so a write anybody commits shows within a moment, with no
// polling. Hints arriving together are one re-read. Past moments never change, so a pinned
// view only notes that newer moments exist and re-reads when "follow now" is ticked again
// (a hidden tab, when it is shown again). A dropped socket reconnects with backoff (1 s,
// doubling to 30 s) and re-reads once, since hints sent meanwhile were lost; a refused
// subscription (FORBIDDEN, no token) says so and does not retry until the scope or token
// changes.
const live = { ws: null, retry: 1000, timer: null, due: null, missed: false, lost: false };
function liveState(state, text) {
  viz.live = state; const el = $("live"); el.dataset.state = state; el.textContent = text;
}
function subscribe() {
  clearTimeout(live.timer);
  if (live.ws) { live.ws.onclose = null; live.ws.close(); live.ws = null; }
  const scope = S.scope;
  if (!scope) { liveState("off", ""); return; }
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/graphql",
                           "graphql-transport-ws");
  live.ws = ws;
  ws.onopen = () => {
    const token = sessionStorage.getItem(TOKEN_KEY);
    ws.send(JSON.stringify({ type: "connection_init", payload: token ? { Authorization: "Bearer " + token } : {} }));
  };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "connection_ack") {
      ws.send(JSON.stringify({ id: "changes", type: "subscribe", payload: {
        query: "subscription($s: String!) { graphChanged(scope: $s) { kind ids at } }", variables: { s: scope } } }));
      liveState("on", "● live"); live.retry = 1000;
      if (live.lost) { live.lost = false; hinted(); }
    } else if (m.type === "next" && m.payload && m.payload.errors) {
      refused(ws, m.payload.errors[0]);
    } else if (m.type === "next") {
      hinted();
    } else if (m.type === "error") {
      refused(ws, (m.payload && m.payload[0]) || {});
    } else if (m.type === "ping") {
      ws.send(JSON.stringify({ type: "pong" }));
    }
  };
  ws.onclose = (ev) => {
    if (live.ws !== ws) return;
    live.ws = null;
    if (ev.code === 4403 || ev.code === 4401) { liveState("refused", "not live: " + (ev.reason || "token refused")); return; }
    live.lost = true;
    liveState("retrying", "reconnecting…");
    live.timer = setTimeout(subscribe, live.retry);
    live.retry = Math.min(live.retry * 2, 30000);
  };
}
// for tests and the console: drop the socket as a network failure would
viz.dropLive = () => { if (live.ws) live.ws.close(); };
function refused(ws, error) {
  live.ws = null; ws.onclose = null; ws.close();
  liveState("refused", `not live: ${(error.extensions && error.extensions.code) || "ERROR"}`);
}
// A person typing in the detail panel (an open edit box, a focused field) is never redrawn
// under their hands: the re-read waits until the box closes or the field loses focus.
const editing = () => !!document.querySelector("#detail details[open]") ||
  !!(document.activeElement && document.activeElement.closest && document.activeElement.closest("#detail input, #detail textarea"));
function hinted() {
  viz.hints = (viz.hints || 0) + 1;
  if (!viz.ready) return;
  if (!$("follow").checked || document.hidden || $("from").value || $("to").value || editing()) {
    live.missed = true; return;
  }
  clearTimeout(live.due);
  live.due = setTimeout(() => { caughtUp().catch(() => {}); }, 250);
}
// Re-read the versions; redraw only when there are new moments (this page's own write has
// already been drawn by the time its hint arrives).
async function caughtUp() {
  live.missed = false;
  const scope = S.scope;
  const tables = (await gql(REPLAY_Q, { s: scope, from: null, to: null })).graphReplay.tables;
  if (scope !== S.scope || tables.moments.length === S.moments.length) return;
  if (editing()) { live.missed = true; return; }
  window.__replay = { scope, answer: Promise.resolve({ data: { graphReplay: { tables } } }) };
  await refresh(null);
}
const missedSince = () => { if (live.missed) hinted(); };
$("follow").addEventListener("change", () => { if ($("follow").checked) missedSince(); });
document.addEventListener("visibilitychange", () => { if (!document.hidden) missedSince(); });
$("detail").addEventListener("toggle", () => setTimeout(missedSince, 0), true);
$("detail").addEventListener("focusout", () => setTimeout(missedSince, 0));

// The scope picker: the scopes this token may read, with their sizes (the `scopes` query),
// fetched after the first paint so it never delays the drawing.
// Scopes with no entity and no event have nothing to draw: left out unless "empty scopes" is
// ticked (the scope shown stays listed).
async function fillScopes() {
  try {
    const all = $("emptyScopes").checked;
    const list = (await gql("{ scopes { scope entities events } }")).scopes
      .filter((s) => all || s.entities + s.events > 0 || s.scope === S.scope);
    $("scopeList").innerHTML = list.map((s) =>
      `<option value="${esc(s.scope)}">${s.entities} entities · ${s.events} events</option>`).join("");
  } catch (e) {
    $("scopeList").innerHTML = ""; // without a usable token the picker stays empty
  } finally { viz.scopesReady = true; }
}

$("emptyScopes").addEventListener("change", () => { viz.scopesReady = false; fillScopes(); });

// the legend can be hidden (it covers the ring's lower left); the choice is remembered. With
// no choice made it is shown, except on a large scope (the overview's size and more), whose
// ring it would cover most: there it starts as its "legend ▸" button
function showLegend(open) {
  $("legend").classList.toggle("collapsed", !open);
  $("legendToggle").setAttribute("aria-expanded", String(open));
  $("legendToggle").textContent = open ? "legend ▾" : "legend ▸";
}
function legendFor(entities) {
  const chosen = localStorage.getItem("storygraph.legend");
  showLegend(chosen ? chosen !== "hidden" : entities < OVERVIEW_AT);
}
legendFor(0);
$("legendToggle").addEventListener("click", () => {
  const open = $("legend").classList.contains("collapsed");
  localStorage.setItem("storygraph.legend", open ? "shown" : "hidden");
  showLegend(open);
});

readUrl();
load().finally(() => { subscribe(); fillScopes(); });
