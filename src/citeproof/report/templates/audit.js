(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");
  var chips = document.querySelectorAll("button.chip[data-detail]");
  var current = null;
  function close() {
    if (!current) { return; }
    current.panel.classList.remove("open");
    current.chip.setAttribute("aria-expanded", "false");
    current = null;
  }
  function open(chip) {
    var panel = document.getElementById(chip.getAttribute("data-detail"));
    if (!panel) { return; }
    if (current && current.chip === chip) { close(); return; }
    close();
    panel.classList.add("open");
    chip.setAttribute("aria-expanded", "true");
    current = { chip: chip, panel: panel };
    panel.scrollIntoView({ block: "nearest" });
    panel.focus({ preventScroll: true });
  }
  for (var i = 0; i < chips.length; i++) {
    chips[i].addEventListener("click", function (event) { open(event.currentTarget); });
  }
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && current) {
      var chip = current.chip;
      close();
      chip.focus();
    }
  });
  var all = document.getElementById("show-all");
  if (all) {
    all.addEventListener("click", function () {
      var on = root.classList.toggle("show-all");
      all.setAttribute("aria-pressed", on ? "true" : "false");
      all.textContent = on ? "Show one at a time" : "Show all";
    });
  }
})();
