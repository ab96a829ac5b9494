// ---------------------------------------------------------------- changed since
// The graph view's "changed since" choice, kept apart from viz.js (it uses viz.js's globals:
// S, $, gql, esc, readable, asOfArg, localTime, select). Choosing a record moment reads
// GraphQL `storyGraphDiff(scope, since)` (every page of it) and marks the objects changed
// after it: added (green), revised (amber; restored ones too), retracted or removed (red,
// dashed; a retracted object is gone from the graph now, so it is only listed). The legend
// says which is which; the list below it names each change, its fields before → after, who
// made it and when. A graph re-read (a write, a new moment) reads the diff again.
(() => {
  const DIFF_Q = `query($s: String!, $since: DateTime!, $after: String) {
    storyGraphDiff(scope: $s, since: $since, first: 200, after: $after) {
      totalCount pageInfo { hasNextPage endCursor }
      edges { node { objectKind objectId objectLabel change changedAt why resultId by { kind id } byLabel label
        fields { field label before after beforeLabel afterLabel } } } } }`;
  const MARK = { ADDED: "added", REVISED: "revised", RESTORED: "revised", RETRACTED: "retracted", REMOVED: "retracted" };
  const COLOR = { added: "#16a34a", revised: "#d97706", retracted: "#be123c" };
  const MAX_PAGES = 20;
  const chg = (window.vizChanges = { since: null, entries: [], running: null, done: "" });

  const style = document.createElement("style");
  style.textContent = `#changesPanel { border-bottom: 1px solid #ddd; padding: 4px 0; }
    #changesPanel summary { cursor: pointer; font-weight: 600; }
    #changesLegend span { margin-right: 8px; white-space: nowrap; }
    #changesLegend i { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 3px; vertical-align: middle; }
    #changesList { list-style: none; margin: 4px 0; padding: 0; max-height: 220px; overflow: auto; font-size: 12px; }
    #changesList li { padding: 2px 0; border-bottom: 1px dotted #eee; cursor: pointer; }
    #changesList .tag { font-weight: 600; margin-right: 4px; }
    #changesList .added .tag { color: ${COLOR.added}; } #changesList .revised .tag { color: ${COLOR.revised}; }
    #changesList .retracted .tag { color: ${COLOR.retracted}; }`;
  document.head.appendChild(style);

  const pick = document.createElement("label");
  pick.title = "mark what was added, revised or retracted after a record moment";
  pick.innerHTML = `changed since <select id="changedSince" aria-label="changed since"><option value="">—</option></select>`;
  document.querySelector("header").insertBefore(pick, $("status"));
  const panel = document.createElement("details");
  panel.id = "changesPanel";
  panel.innerHTML = `<summary>Changes <span id="changesCount"></span></summary>
    <div id="changesLegend" aria-label="changes legend">
      <span><i style="background:${COLOR.added}"></i>added</span>
      <span><i style="background:${COLOR.revised}"></i>revised</span>
      <span><i style="background:${COLOR.retracted}"></i>retracted / removed</span></div>
    <div id="changesInfo" role="status"></div><ul id="changesList" aria-label="changes since"></ul>`;
  document.querySelector("aside").insertBefore(panel, $("detail"));

  const last = (vs) => (vs && vs.length ? vs[vs.length - 1] : null);
  function label(e) {
    const id = e.objectId, kind = e.objectKind.toUpperCase();
    if (kind === "ENTITY") return last(S.ents.get(id))?.name ?? id;
    if (kind === "EVENT") return last(S.evs.get(id))?.title ?? id;
    if (kind === "RELATION") {
      const r = last(S.rels.get(id));
      if (!r) return id;
      const name = (x) => last(S.ents.get(x))?.name ?? x;
      return `${name(r.from)} —${r.type}→ ${name(r.to)}`;
    }
    return id;
  }
  const nodeOf = (e) => (e.objectKind.toUpperCase() === "EVENT" ? S.evNode.get(e.objectId) || e.objectId : e.objectId);

  function fillMoments() {
    const box = $("changedSince"), keep = box.value;
    box.innerHTML = `<option value="">—</option>` + S.moments.slice(0, -1).map((m) =>
      `<option value="${m}">${esc(momentTime(m))}</option>`).join("");
    box.value = [...box.options].some((o) => o.value === keep) ? keep : "";
    if (box.value !== keep) { chg.since = null; chg.entries = []; paint(); list(); }
    // the URL's "changed since" (a link): chosen once the moments are known
    if (S.wantSince && chg.since === null && !chg.restored) {
      chg.restored = true;
      const hit = [...box.options].find((o) => o.value && Number(o.value) === S.wantSince);
      if (hit) { box.value = hit.value; run(); }
    }
  }
  // Back or Forward to a state with another (or no) "changed since"
  chg.restore = async (since) => {
    const box = $("changedSince");
    const want = since === null || since === undefined ? "" : String(since);
    if ((chg.since === null ? "" : String(chg.since)) === want) return;
    box.value = [...box.options].some((o) => o.value === want) ? want : "";
    await run();
  };

  function paint() {
    if (!S.cy) return;
    S.cy.elements(".chg-added, .chg-revised, .chg-retracted").removeClass("chg-added chg-revised chg-retracted");
    for (const e of chg.entries) {
      const el = S.cy.getElementById(nodeOf(e));
      if (el.nonempty()) el.addClass("chg-" + MARK[e.change]);
    }
  }

  // a person's reason is shown under the sentence (which already names who); an automatic
  // version's bookkeeping ("result <its result id>") is not a reason
  const reason = (e) => (e.why && e.why !== `result ${e.resultId}` ? e.why : "");
  function list() {
    const ul = $("changesList");
    if (chg.since === null) { ul.innerHTML = ""; $("changesCount").textContent = ""; $("changesInfo").textContent = "choose a moment under “changed since”"; return; }
    $("changesCount").textContent = `(${chg.entries.length})`;
    $("changesInfo").textContent = `${chg.entries.length} changes since ${localTime(chg.since)}`;
    // each change is the API's sentence (fields in words, ids as names); the id is the title
    ul.innerHTML = chg.entries.map((e, i) => {
      const fields = e.fields.map((f) => `${f.field}: ${f.before ?? "∅"} → ${f.after ?? "∅"}`).join("\n");
      return `<li class="${MARK[e.change]}" data-i="${i}" data-id="${esc(e.objectId)}"><span class="tag">${e.change.toLowerCase()}</span> ` +
        `<span class="sentence" title="${esc(e.objectId + (fields ? "\n" + fields : ""))}">${esc(e.label)}</span>` +
        `<div class="meta">${esc(localTime(Date.parse(e.changedAt)))}${reason(e) ? " · " + esc(reason(e)) : ""}</div></li>`;
    }).join("");
  }

  async function run() {
    const v = $("changedSince").value;
    chg.since = v ? Number(v) : null;
    writeUrl();
    if (chg.since === null) { chg.entries = []; paint(); list(); chg.done = `none@${S.scope}`; return; }
    panel.open = true;
    const ticket = (chg.running = {});
    const entries = [];
    try {
      let after = null;
      for (let i = 0; i < MAX_PAGES; i++) {
        const page = (await gql(DIFF_Q, { s: S.scope, since: asOfArg(chg.since), after })).storyGraphDiff;
        entries.push(...page.edges.map((x) => x.node));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
    } catch (err) {
      if (chg.running === ticket) $("changesInfo").textContent = readable(err);
      return;
    }
    if (chg.running !== ticket) return;
    chg.entries = entries;
    paint(); list();
    chg.done = `${chg.since}@${S.scope}@${entries.length}`;
  }

  $("changedSince").addEventListener("change", run);
  $("changesList").addEventListener("click", (ev) => {
    const li = ev.target.closest("li[data-i]"); if (!li) return;
    const e = chg.entries[Number(li.dataset.i)];
    const el = S.cy && S.cy.getElementById(nodeOf(e));
    if (el && el.nonempty() && !el.hasClass("gone")) select(el.id(), "changes");
  });
  const cyStyle = () => S.cy && S.cy.style()
    .selector("node.chg-added").style({ "border-width": 5, "border-color": COLOR.added })
    .selector("node.chg-revised").style({ "border-width": 5, "border-color": COLOR.revised })
    .selector("node.chg-retracted").style({ "border-width": 5, "border-color": COLOR.retracted, "border-style": "dashed" })
    .selector("edge.chg-added").style({ "line-color": COLOR.added, "width": 4 })
    .selector("edge.chg-revised").style({ "line-color": COLOR.revised, "width": 4 })
    .selector("edge.chg-retracted").style({ "line-color": COLOR.retracted, "line-style": "dashed", "width": 4 })
    .update();
  // draw() makes a new Cytoscape instance and a write re-reads the tables: style, list the
  // moments and read the diff again when either appears
  let seenCy = null, seenTables = null;
  setInterval(() => {
    if (S.cy && S.cy !== seenCy) { seenCy = S.cy; cyStyle(); paint(); }
    if (S.tables && S.tables !== seenTables) { seenTables = S.tables; fillMoments(); if (chg.since !== null) run(); }
  }, 250);
})();
// ---------------------------------------------------------------- end of changed since
