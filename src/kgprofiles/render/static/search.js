// Search for the static site (`kgprofiles site build`): reads search/index.json, written with the
// site, and lists the items every typed word starts a word of, names first. Everything from the
// index is written with textContent, never as HTML.
"use strict";
(function () {
  const box = document.getElementById("search-results");
  if (!box) return;
  const query = new URLSearchParams(window.location.search).get("q") || "";
  const input = document.querySelector("form.search-large input[name=q]");
  if (input) input.value = query;
  const fold = (text) => text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  const words = fold(query).split(/[^\p{L}\p{N}]+/u).filter(Boolean).slice(0, 10);
  const kinds = { person: "Person", organization: "Organisation", topic: "Topic", work: "Work" };
  const say = (text) => {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = text;
    box.replaceChildren(p);
  };
  if (!words.length) {
    say("Type a few words: people, organisations, topics and works are found by their names, other names, headlines, organisations and topics.");
    return;
  }
  const starts = (tokens, word) => (" " + tokens).includes(" " + word);
  fetch(box.dataset.index)
    .then((answer) => answer.json())
    .then((index) => {
      const hits = [];
      for (const [path, kind, name, nameTokens, otherTokens] of index.items) {
        let score = 0;
        for (const word of words) {
          if (starts(nameTokens, word)) score += 10;
          else if (starts(otherTokens, word)) score += 1;
          else { score = 0; break; }
        }
        if (score > 0) hits.push({ path, kind, name, score });
      }
      hits.sort((a, b) => b.score - a.score || index.kinds.indexOf(a.kind) - index.kinds.indexOf(b.kind) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      say(`${hits.length} result${hits.length === 1 ? "" : "s"} for “${query}”`);
      const list = document.createElement("ul");
      list.className = "plain results";
      for (const hit of hits.slice(0, 100)) {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = `${box.dataset.base}/id/${hit.path}/`;
        link.textContent = hit.name;
        const kind = document.createElement("span");
        kind.className = "kind";
        kind.textContent = kinds[hit.kind] || hit.kind;
        item.append(link, kind);
        list.append(item);
      }
      box.append(list);
    })
    .catch(() => say("The search index could not be read."));
})();
