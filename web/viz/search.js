// ---------------------------------------------------------------- search
// The graph view's search box, kept apart from viz.js (it uses viz.js's globals: S, $, gql,
// asOfArg, select). A search runs GraphQL `search` in the scope as known at the slider's
// moment; hits drawn in the graph get the class `hit` (highlighted), the view centres on the
// first, and "only hits" keeps the hits and their neighbours. A hit that is not drawn (a
// passage, a summary) is counted in the line beside the box. Moving the slider searches again.
(() => {
  const SEARCH_Q = `query($s: String!, $t: String!, $a: DateTime) {
    search(scope: $s, text: $t, asOf: $a, first: 50) { mode totalCount
      edges { node { kind id passage field standing } } } }`;
  const box = document.createElement("span");
  box.id = "searchBox";
  box.innerHTML = `<input id="search" type="search" size="14" placeholder="search…" aria-label="search the graph">
    <label title="show only the hits and their neighbours"><input id="searchOnly" type="checkbox"> only hits</label>
    <span id="searchInfo" role="status"></span>`;
  document.querySelector("header").insertBefore(box, $("status"));
  const search = (window.vizSearch = { text: "", ids: [], running: null });

  function graphNode(hit) {
    if (hit.kind === "EVENT") return S.evNode.get(hit.id) || hit.id;
    return hit.id;
  }

  function paint() {
    if (!S.cy) return;
    S.cy.elements(".hit, .offsearch").removeClass("hit offsearch");
    if (!search.text) return;
    const drawn = S.cy.collection();
    for (const id of search.ids) { const el = S.cy.getElementById(id); if (el.nonempty() && !el.hasClass("gone")) drawn.merge(el); }
    drawn.addClass("hit");
    if ($("searchOnly").checked && drawn.nonempty()) {
      const keep = drawn.closedNeighborhood().union(drawn.connectedNodes());
      S.cy.elements().difference(keep).addClass("offsearch");
    }
    return drawn;
  }

  async function run() {
    search.text = $("search").value.trim();
    if (!search.text) writeUrl();
    if (!search.text) { search.ids = []; paint(); $("searchInfo").textContent = ""; $("searchInfo").dataset.done = `@${S.T}`; return; }
    const ticket = (search.running = {});
    const T = (search.T = S.T);
    let found;
    try {
      found = (await gql(SEARCH_Q, { s: S.scope, t: search.text, a: T ? asOfArg(T) : null })).search;
    } catch (err) {
      if (search.running === ticket) $("searchInfo").textContent = readable(err);
      return;
    }
    if (search.running !== ticket) return;
    const hits = found.edges.map((e) => e.node);
    search.ids = hits.filter((h) => h.kind !== "PASSAGE" && h.kind !== "SUMMARY").map(graphNode);
    const drawn = paint();
    const inGraph = drawn ? drawn.length : 0;
    $("searchInfo").textContent = `${found.totalCount} hits, ${inGraph} in the graph (${found.mode.toLowerCase()})`;
    $("searchInfo").title = $("searchInfo").textContent;
    $("searchInfo").dataset.done = `${search.text}@${T}`;
    const first = search.ids.map((id) => S.cy.getElementById(id)).find((el) => el.nonempty() && !el.hasClass("gone"));
    // one history entry for a search: its text and the hit it selected
    if (first && !S.restoring) { S.cy.animate({ center: { eles: first } }, { duration: 200 }); select(first.id(), "search"); }
    else writeUrl();
  }
  // the URL's search text (a link, Back or Forward): searched once the graph is drawn
  search.restore = async (text) => {
    if ((text || "") === search.text) return;
    $("search").value = text || "";
    await run();
  };

  $("search").addEventListener("keydown", (e) => { if (e.key === "Enter") run(); });
  $("search").addEventListener("search", run);  // the clear button of a search input
  $("searchOnly").addEventListener("change", paint);
  const style = () => S.cy && S.cy.style()
    .selector("node.hit").style({ "border-width": 4, "border-color": "#db2777", "label": "data(label)", "z-index": 20 })
    .selector("edge.hit").style({ "line-color": "#db2777", "width": 4 })
    .selector(".offsearch").style({ "display": "none" })
    .update();
  // draw() makes a new Cytoscape instance: style and paint it again when it appears; a new
  // moment on the slider (S.T) searches again, as known then
  let seen = null;
  setInterval(() => {
    if (S.cy && S.cy !== seen) {
      seen = S.cy; style(); paint();
      if (S.wantSearch && !search.text) { $("search").value = S.wantSearch; run(); }
    }
    if (search.text && search.T !== S.T) run();
  }, 250);
})();
// ---------------------------------------------------------------- end of search
