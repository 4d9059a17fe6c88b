// The query editor: YASGUI on this site's endpoint, opened on the first example; the
// "Open in the editor" buttons open the named queries in new tabs. The only script of the site.
// Nothing is fetched from elsewhere: prefix completion reads this site's /api/prefixes, and the
// completers that ask outside services (LOV's classes and properties) are left out.
(function () {
  "use strict";
  var holder = document.getElementById("yasgui");
  var config = JSON.parse(document.getElementById("sparql-config").textContent);
  if (!holder || typeof Yasgui === "undefined") return;
  document.documentElement.classList.add("has-editor");
  safeIriLinks(Yasgui.Yasr.plugins.table);
  Yasgui.Yasqe.defaults.autocompleters = ["prefixes", "variables"];
  Yasgui.Yasqe.defaults.prefixCcApi = config.prefixesUrl;
  Yasgui.Yasqe.defaults.lineWrapping = true; // a long comment line wraps instead of running under the buttons
  var request = { endpoint: config.endpoint, method: "POST" };
  var first = config.examples.length ? config.examples[0].query : "SELECT * WHERE { ?s ?p ?o } LIMIT 10";
  var yasgui = new Yasgui(holder, {
    requestConfig: request,
    copyEndpointOnNewTab: true,
    endpointCatalogueOptions: { getData: function () { return [{ endpoint: config.endpoint }]; } },
    persistenceId: null,
    yasqe: { value: first, persistenceId: null },
    yasr: { prefixes: config.prefixes, persistenceId: null }
  });
  window.kgprofilesEditor = yasgui;
  accessible();
  yasgui.on("tabAdd", function () { setTimeout(accessible, 0); });
  yasgui.on("tabChange", function () { setTimeout(accessible, 0); });
  Array.prototype.forEach.call(document.querySelectorAll(".open-example"), function (button) {
    button.addEventListener("click", function () {
      var example = config.examples[Number(button.getAttribute("data-example"))];
      yasgui.addTab(true, { name: example.name, yasqe: { value: example.query }, requestConfig: request });
      holder.scrollIntoView();
    });
  });

  // What axe-core finds in YASGUI's markup, mended after it is drawn: its "+" (add a tab) button
  // sits inside the tab list, where only tabs may be (it moves after the list; YASGUI keeps its
  // empty wrapper, which it inserts new tabs before); the query's text area (CodeMirror's hidden
  // textarea) and the endpoint box have no label; the editor's scrolling area cannot be reached
  // from the keyboard.
  function accessible() {
    var list = holder.querySelector(".tabsList");
    var add = list && list.querySelector(".addTab");
    if (add) list.parentNode.insertBefore(add, list.nextSibling);
    Array.prototype.forEach.call(holder.querySelectorAll(".CodeMirror textarea"), function (area) {
      area.setAttribute("aria-label", "SPARQL query");
    });
    Array.prototype.forEach.call(holder.querySelectorAll("input.autocomplete"), function (input) {
      input.setAttribute("aria-label", "SPARQL endpoint");
    });
    Array.prototype.forEach.call(holder.querySelectorAll(".CodeMirror-scroll"), function (area) {
      area.setAttribute("tabindex", "0");
    });
  }

  // YASR's results table writes an IRI into href='…' as it is: a `javascript:` IRI becomes a
  // link, and an IRI with a quote adds attributes (<https://example.org/'onmouseover='…'>). The
  // same rule as the site's pages instead (kgprofiles.render.links): only what the browser reads
  // as an http, https or mailto URL is a link, and the IRI and its label are escaped. The graph's
  // own IRIs (config.localIris.prefix, e.g. https://w3id.org/kgprofiles/id/person/x) link to
  // their page on this site, in the same tab, as the site's pages link them.
  function safeIriLinks(table) {
    function escape(text) {
      return String(text).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; });
    }
    function linkable(iri) {
      try {
        return ["http:", "https:", "mailto:"].indexOf(new URL(iri).protocol) >= 0;
      } catch (e) {
        return false;
      }
    }
    table.prototype.getUriLinkFromBinding = function (binding, prefixes) {
      var iri = binding.value;
      var label = iri;
      var prefixed = false;
      for (var prefix in prefixes || {}) {
        if (iri.indexOf(prefixes[prefix]) === 0) {
          label = prefix + ":" + iri.substring(prefixes[prefix].length);
          prefixed = true;
          break;
        }
      }
      var local = config.localIris && iri.indexOf(config.localIris.prefix) === 0;
      var text = local
        ? "<a class='iri' href='" + escape(config.localIris.base + iri.substring(config.localIris.prefix.length)) + "'>" +
          escape(label) + "</a>"
        : linkable(iri)
        ? "<a class='iri' target='_blank' rel='noopener noreferrer' href='" + escape(iri) + "'>" + escape(label) + "</a>"
        : "<span class='iri'>" + escape(label) + "</span>";
      return prefixed || this.persistentConfig.compact ? text : "&lt;" + text + "&gt;";
    };
  }
})();
