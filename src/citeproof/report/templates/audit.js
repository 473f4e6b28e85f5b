(function () {
  "use strict";
  // Only an enhancement: every citation is a <details> that opens without script, and the
  // "problems only" filter is CSS.  This adds "Open every citation", Escape to close the
  // citation in focus, and every citation opened while printing.
  var root = document.documentElement;
  root.classList.add("js");
  var panels = document.querySelectorAll("details.cit");
  function each(fn) {
    for (var i = 0; i < panels.length; i++) { fn(panels[i]); }
  }
  var all = document.getElementById("show-all");
  if (all) {
    all.addEventListener("click", function () {
      var on = all.getAttribute("aria-pressed") !== "true";
      each(function (panel) { panel.open = on; });
      all.setAttribute("aria-pressed", on ? "true" : "false");
      all.textContent = on ? "Close every citation" : "Open every citation";
    });
  }
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    var here = document.activeElement;
    var panel = here && here.closest ? here.closest("details.cit") : null;
    if (panel && panel.open) {
      panel.open = false;
      panel.querySelector("summary").focus();
      event.preventDefault();
    }
  });
  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = [];
    each(function (panel) {
      if (!panel.open) { panel.open = true; opened.push(panel); }
    });
  });
  window.addEventListener("afterprint", function () {
    for (var i = 0; i < opened.length; i++) { opened[i].open = false; }
    opened = [];
  });
})();
