// ---------------------------------------------------------------- inbox
// The graph view's inbox, kept apart from viz.js (it uses viz.js's globals: S, $, gql, esc,
// readable, localTime, refresh). It lists what waits for a person in the scope (GraphQL
// `inbox`, badges from `inboxCounts`): a suggestion or difference with its quoted evidence
// (or "unavailable" when its source version was withdrawn), current → proposed value, who
// proposed it and when, and Accept / Dismiss / Edit (edit the value, then accept); a failed
// or paused supervision run with what happened, when, why, and its actions (continue,
// cancel). Each action passes the seenVersion the item was read with: a stale one answers
// CONFLICT, which the item shows, and the inbox is read again. After an action the graph is
// re-read (`refresh`), so what was accepted shows in it.
(() => {
  const INBOX_Q = `query($s: String!) {
    inboxCounts(scope: $s) { field difference failedRun pausedRun total }
    inbox(scope: $s, first: 50) { edges { node {
      kind id at what reason currentValue proposedValue currentLabel proposedLabel proposedAt
      seenVersion repeatOf label targetLabel fieldLabel proposedByLabel
      proposedBy { kind id }
      suggestion { id field targetKind targetId reason }
      evidence { sourceId sourceVersion locator excerpt { available text warning } }
      run { id status trigger errorStage errorMessage pauseReason actions } } } } }`;
  const HOLDER_FIELDS = new Set(["from_id", "to_id"]);
  const ib = (window.vizInbox = { items: [], counts: null, done: "", notes: new Map() });

  const style = document.createElement("style");
  style.textContent = `#inboxPanel { border-bottom: 1px solid #ddd; padding: 4px 0; }
    #inboxPanel summary { cursor: pointer; font-weight: 600; }
    #inboxBadges .badge { display: inline-block; min-width: 16px; padding: 0 4px; margin-left: 4px; border-radius: 8px; background: #e5e7eb; font-size: 11px; text-align: center; }
    #inboxBadges .badge.on { background: #2563eb; color: #fff; }
    #inboxList { list-style: none; margin: 4px 0; padding: 0; max-height: 320px; overflow: auto; font-size: 12px; }
    #inboxList > li { padding: 4px 0; border-bottom: 1px dotted #ddd; }
    #inboxList blockquote { margin: 2px 0 2px 8px; padding-left: 6px; border-left: 3px solid #cbd5e1; color: #334155; }
    #inboxList .unavailable { color: #b45309; font-style: italic; }
    #inboxList .error { color: #b91c1c; }
    #inboxList .done { color: #15803d; }`;
  document.head.appendChild(style);

  const panel = document.createElement("details");
  panel.id = "inboxPanel";
  panel.open = true;
  panel.innerHTML = `<summary>Inbox <span id="inboxBadges" aria-label="inbox counts"></span></summary>
    <div id="inboxInfo" role="status"></div><ul id="inboxList" aria-label="inbox"></ul>`;
  document.querySelector("aside").insertBefore(panel, $("detail"));

  const last = (vs) => (vs && vs.length ? vs[vs.length - 1] : null);
  const targetName = (s) => (s.targetKind === "ENTITY" ? last(S.ents.get(s.targetId))?.name : null)
    ?? (s.targetKind === "RELATION" ? last(S.rels.get(s.targetId))?.type : null) ?? s.targetId;
  const when = (t) => localTime(Date.parse(t));

  function badges(c) {
    const b = (name, n) => `<span class="badge${n ? " on" : ""}" data-kind="${name}" title="${name}">${name} ${n}</span>`;
    return b("field", c.field) + b("difference", c.difference) + b("failed", c.failedRun) + b("paused", c.pausedRun);
  }

  function evidence(refs) {
    if (!refs.length) return `<div class="meta">no cited passage</div>`;
    return refs.map((r) => r.excerpt.available
      ? `<blockquote>“${esc(r.excerpt.text)}”<div class="meta">${esc(r.sourceId)} @ ${esc(r.sourceVersion)} ${esc(r.locator)}</div></blockquote>`
      : `<blockquote class="unavailable">unavailable${r.excerpt.warning ? ": " + esc(r.excerpt.warning) : ""}<div class="meta">${esc(r.sourceId)} @ ${esc(r.sourceVersion)} ${esc(r.locator)}</div></blockquote>`).join("");
  }

  function itemHtml(i) {
    const note = ib.notes.get(i.id);
    const noteHtml = note ? `<div class="${note.cls}" role="alert">${esc(note.text)}</div>` : "";
    if (i.run) {
      const r = i.run;
      const buttons = r.actions.map((a) => `<button data-run="${esc(r.id)}" data-act="${a}">${a === "continueReview" ? (r.status === "failed" ? "Retry" : "Continue") : "Cancel"}</button>`).join("");
      return `<li class="run ${esc(r.status)}" data-id="${esc(i.id)}"><b>${esc(i.what)}</b>
        <div>${esc(i.reason ?? "")}</div><div class="meta">run ${esc(r.id)} · ${esc(when(i.at))}</div>
        <span class="actions">${buttons}</span>${noteHtml}</li>`;
    }
    const s = i.suggestion;
    // a relation's end holds an entity id: the choice is one holder or the other, not a text
    const editable = !HOLDER_FIELDS.has(s.field);
    // the API's words: the object by name (its id as the title), the field in words
    return `<li class="suggestion" data-id="${esc(i.id)}"><b>${esc(i.what)}</b>: <span class="target" title="${esc(s.targetId)}">${esc(i.targetLabel || targetName(s))}</span> · <span class="field" title="${esc(s.field)}">${esc(i.fieldLabel || s.field)}</span>
      <div class="values">current <del title="${esc(i.currentValue ?? "")}">${esc(i.currentLabel || "∅")}</del> → proposed <ins title="${esc(i.proposedValue ?? "")}">${esc(i.proposedLabel ?? "")}</ins></div>
      ${evidence(i.evidence)}
      <div class="meta">proposed by <span title="${esc(i.proposedBy ? i.proposedBy.kind.toLowerCase() + " " + i.proposedBy.id : "")}">${esc(i.proposedByLabel || "unknown")}</span> · ${esc(when(i.proposedAt))}${i.repeatOf ? " · back on new evidence" : ""}</div>
      <span class="actions"><button data-sid="${esc(i.id)}" data-act="accept">Accept</button><button data-sid="${esc(i.id)}" data-act="dismiss">Dismiss</button>${editable ? `<button data-sid="${esc(i.id)}" data-act="edit">Edit…</button>` : ""}</span>
      ${editable ? `<div class="edit" hidden><input class="editValue" aria-label="value to accept" value="${esc(i.proposedValue)}"> <button data-sid="${esc(i.id)}" data-act="acceptEdited">Accept edited</button></div>` : ""}
      ${noteHtml}</li>`;
  }

  async function read() {
    if (!S.scope) return;
    const scope = S.scope;
    let got;
    try { got = await gql(INBOX_Q, { s: scope }); }
    catch (err) { $("inboxInfo").textContent = readable(err); return; }
    if (scope !== S.scope) return;
    ib.items = got.inbox.edges.map((e) => e.node);
    ib.counts = got.inboxCounts;
    $("inboxBadges").innerHTML = badges(ib.counts);
    $("inboxInfo").textContent = ib.items.length ? "" : "nothing waits for you";
    $("inboxList").innerHTML = ib.items.map(itemHtml).join("");
    ib.done = `${scope}@${ib.counts.total}@${Date.now()}`;
  }

  async function act(button) {
    const d = button.dataset;
    if (d.act === "edit") { button.closest("li").querySelector(".edit").hidden = false; return; }
    const id = d.sid || d.run;
    const item = ib.items.find((x) => x.id === id);
    if (!item) return;
    button.disabled = true;
    ib.notes.delete(id);
    try {
      if (d.run) {
        await gql(`mutation($id: String!) { r: ${d.act}(id: $id) { id status } }`, { id });
        ib.notes.set(id, { cls: "done", text: d.act === "continueReview" ? "continued" : "cancelled" });
      } else {
        const accept = d.act !== "dismiss";
        const value = d.act === "acceptEdited" ? button.closest(".edit").querySelector(".editValue").value : null;
        await gql(`mutation($s: String!, $id: ID!, $v: Int, $value: String) {
          r: ${accept ? "acceptSuggestion" : "dismissSuggestion"}(scope: $s, id: $id, seenVersion: $v, value: $value, why: "graph view inbox") { id status } }`,
        { s: S.scope, id, v: item.seenVersion, value });
        ib.notes.set(id, { cls: "done", text: accept ? "accepted" : "dismissed" });
        await refresh(accept ? "suggestion accepted" : "suggestion dismissed");
      }
    } catch (err) {
      // a stale seenVersion: CONFLICT, nothing written; the item stays, read again
      ib.notes.set(id, { cls: "error", text: readable(err) });
    } finally {
      button.disabled = false;
      await read();
    }
  }

  $("inboxList").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-act]"); if (b) act(b);
    const li = e.target.closest("li.suggestion");
    if (li && !b) { const i = ib.items.find((x) => x.id === li.dataset.id); if (i && S.cy && S.cy.getElementById(i.suggestion.targetId).nonempty()) select(i.suggestion.targetId, "inbox"); }
  });
  // read again whenever the graph is re-read (a write, a graphChanged hint, another scope)
  let seenTables = null;
  setInterval(() => { if (S.tables && S.tables !== seenTables) { seenTables = S.tables; read(); } }, 250);
  ib.read = read;
})();
// ---------------------------------------------------------------- end of inbox
