// ---------------------------------------------------------------- signal chains
// A signal's chain in the detail panel, kept apart from viz.js (it uses viz.js's globals: S,
// $, gql, esc, link, at, asOfArg, localTime, detailGraph, readable): the passage it cites →
// the signal with the agenda's decision → the concern raised or supplemented for it → the
// answer (the line the answer's event cites in the concern's conversation, else the
// person's last reply) → the event or correction that person wrote via the concern. Shown
// when a signal is selected (the list's Signals, or its due mark on the ring) and under an
// event that came via a concern. Everything is read as known at the slider's moment.
(() => {
  const CHAIN_Q = `query($s: String!, $id: ID!, $a: DateTime) {
    signal(scope: $s, id: $id, asOf: $a) { id kind status text who what due dueText
      sourceId sourceVersion locator passage { available text warning }
      by { kind id } decision { kind label reason policyVersion }
      concern { id status title goal
        conversation { personName personId direction text ts } } } }`;
  const CONCERN_Q = `query($id: ID!) { concern(id: $id) { id source { signalId } } }`;
  const signals = (window.vizSignals = { drawn: null });

  // the versions a concern's answer wrote, believed at the moment shown: events first
  function brought(concernId) {
    const out = [];
    for (const [kind, map] of [["event", S.evs], ["relation", S.rels], ["entity", S.ents]]) {
      for (const [id, vs] of map) { const v = at(vs, S.T); if (v && v.via === concernId) out.push({ kind, id, v }); }
    }
    return out;
  }
  const nameOfVersion = (b) => b.kind === "event" ? b.v.title : b.kind === "entity" ? b.v.name : b.v.type;

  function step(n, title, body) {
    return `<li class="step" data-step="${esc(title)}"><b>${n} · ${esc(title)}</b>${body}</li>`;
  }

  async function chainHtml(sig) {
    const p = sig.passage;
    const passage = `<div class="meta">${esc(sig.sourceId)} @ ${esc(sig.sourceVersion)} · ${esc(sig.locator)}</div>` +
      (p.available ? `<blockquote class="excerpt">${esc(p.text)}</blockquote>` : `<p class="unavailable">version unavailable${p.warning ? ": " + esc(p.warning) : ""}</p>`);
    const due = sig.due ? ` · due ${esc(localTime(Date.parse(sig.due)))}` : sig.kind === "COMMITMENT" ? " · no due time" : "";
    const decision = sig.decision ? esc(sig.decision.label) + ` <span class="meta">(policy v${sig.decision.policyVersion})</span>` : "undecided (the scope's loop is off)";
    const signal = `<div>${esc(sig.kind.toLowerCase())} · <b class="status">${esc(sig.status.toLowerCase())}</b>${sig.who ? " · " + esc(sig.who) : ""}${due}</div>
      <div>${esc(sig.what || sig.text)}</div><div class="decision">agenda: ${decision}</div>`;
    const steps = [step(1, "passage", passage), step(2, "signal", signal)];
    const c = sig.concern;
    if (!c) {
      steps.push(step(3, "concern", `<p class="meta">none${sig.decision ? "" : " yet"}</p>`));
      return `<ol class="chain">${steps.join("")}</ol>`;
    }
    steps.push(step(3, "concern", `<div>${esc(c.id)} · <b>${esc(c.status.toLowerCase())}</b></div><div>${esc(c.goal)}</div>`));
    const wrote = brought(c.id);
    let answer = "";
    if (wrote.length) {
      const g = await detailGraph(wrote.map((b) => b.id));
      const refs = g.references.filter((r) => wrote.some((b) => b.id === r.ownerId));
      answer = refs.map((r) => `<div class="meta">${esc(r.sourceId)} @ ${esc(r.sourceVersion)} · ${esc(r.locator)}</div>` +
        (r.excerpt.available ? `<blockquote class="excerpt answer">${esc(r.excerpt.text)}</blockquote>` : `<p class="unavailable">${esc(r.excerpt.warning || "unavailable")}</p>`)).join("");
    }
    if (!answer) {
      const reply = c.conversation.filter((m) => m.direction === "INBOUND").at(-1);
      answer = reply ? `<blockquote class="excerpt answer">${esc(reply.personName || reply.personId)}: ${esc(reply.text)}</blockquote><div class="meta">${esc(localTime(Date.parse(reply.ts)))}</div>`
        : `<p class="meta">no answer yet</p>`;
    }
    steps.push(step(4, "answer", answer));
    steps.push(step(5, wrote.some((b) => b.kind !== "event") ? "event or correction" : "event",
      wrote.length ? "<ul>" + wrote.map((b) => `<li>${esc(b.kind)} ${link(b.id, nameOfVersion(b))} <span class="meta">by ${esc(byLabel(b.v.by))}</span></li>`).join("") + "</ul>"
        : `<p class="meta">nothing written back yet</p>`));
    return `<ol class="chain">${steps.join("")}</ol>`;
  }

  async function read(id) {
    return (await gql(CHAIN_Q, { s: S.scope, id, a: asOfArg(S.T) })).signal;
  }

  // a selected signal: its heading and its chain
  signals.drawChain = async (id, current) => {
    const box = $("detail");
    box.innerHTML = "<p class='meta'>loading…</p>";
    let html;
    try {
      const sig = await read(id);
      html = `<h2>${esc(sig.text)}</h2><div class="meta">signal · ${esc(sig.kind.toLowerCase())} · v${at(S.sigs.get(id), S.T).seq}</div>
        <h3>Chain</h3>${await chainHtml(sig)}`;
    } catch (e) { html = `<p class="error">${esc(readable(e))}</p>`; }
    if (!current()) return;
    box.innerHTML = html;
    signals.drawn = id;
  };

  // under an event a person's answer wrote via a concern: the chain it closes
  signals.drawChainOfConcern = async (concernId, current) => {
    const box = $("detail"), part = document.createElement("div");
    part.id = "chainOf";
    part.innerHTML = `<h3>Came via concern ${esc(concernId)}</h3><p class="meta">loading…</p>`;
    box.prepend(part);
    let html;
    try {
      let sid = [...S.sigs.keys()].find((k) => at(S.sigs.get(k), S.T)?.dc === concernId);
      if (!sid) sid = (await gql(CONCERN_Q, { id: concernId })).concern?.source.signalId;
      html = sid && S.sigs.has(sid) ? `<h3>Chain (${link(sid, "signal")})</h3>${await chainHtml(await read(sid))}`
        : `<h3>Came via concern ${esc(concernId)}</h3><p class="meta">raised for no signal of this scope</p>`;
    } catch (e) { html = `<p class="error">${esc(readable(e))}</p>`; }
    if (!current()) return;
    part.innerHTML = html;
  };
})();
// ---------------------------------------------------------------- end of signal chains
