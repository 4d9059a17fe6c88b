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
  Array.prototype.forEach.call(document.querySelectorAll(".open-example"), function (button) {
    button.addEventListener("click", function () {
      var example = config.examples[Number(button.getAttribute("data-example"))];
      yasgui.addTab(true, { name: example.name, yasqe: { value: example.query }, requestConfig: request });
      holder.scrollIntoView();
    });
  });

  // YASR's results table writes an IRI into href='…' as it is: a `javascript:` IRI becomes a
  // link, and an IRI with a quote adds attributes (<https://example.org/'onmouseover='…'>). The
  // same rule as the site's pages instead (kgprofiles.render.links): only what the browser reads
  // as an http, https or mailto URL is a link, and the IRI and its label are escaped.
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
      var text = linkable(iri)
        ? "<a class='iri' target='_blank' rel='noopener noreferrer' href='" + escape(iri) + "'>" + escape(label) + "</a>"
        : "<span class='iri'>" + escape(label) + "</span>";
      return prefixed || this.persistentConfig.compact ? text : "&lt;" + text + "&gt;";
    };
  }
})();
