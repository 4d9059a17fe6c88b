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
})();
