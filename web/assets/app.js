// Data Monsters pages: small touches on top of plain forms; every page
// works without this script.
(function () {
  "use strict";
  // The time zone menu of a new account starts at the browser's zone.
  var zone = document.querySelector("form[action='/register'] select[name=time_zone]");
  if (zone && zone.value === "UTC" && window.Intl) {
    var tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    for (var i = 0; i < zone.options.length; i++) {
      if (zone.options[i].value === tz) { zone.value = tz; break; }
    }
  }
  // A new API token is selected, ready to copy.
  var token = document.getElementById("token-value");
  if (token) { token.focus(); token.select(); }

  // A question that takes between min and max options: no more boxes can
  // be ticked than it takes, and it is not sent with too few. (The server
  // refuses any other answer too.)
  function limits(root) {
    var forms = root.querySelectorAll("form.choose");
    for (var i = 0; i < forms.length; i++) { limit(forms[i]); }
  }
  function limit(form) {
    var min = +form.getAttribute("data-min"), max = +form.getAttribute("data-max");
    var boxes = form.querySelectorAll("input[type=checkbox][name=choice]");
    var count = form.querySelector(".count");
    function ticked() {
      var n = 0;
      for (var j = 0; j < boxes.length; j++) { if (boxes[j].checked) { n++; } }
      return n;
    }
    function update() {
      var n = ticked();
      for (var j = 0; j < boxes.length; j++) { boxes[j].disabled = !boxes[j].checked && n >= max; }
      if (count) {
        count.textContent = n + " chosen" + (n < min ? ", choose " + (min - n) + " more" : "") + ".";
      }
    }
    form.addEventListener("change", update);
    form.addEventListener("submit", function (e) {
      if (ticked() < min) {
        e.preventDefault();
        update();
        boxes[0].focus();
      }
    });
    update();
  }
  limits(document);

  // The board follows its game: when the game's live stream says that
  // something happened, the board is read again and shown in place.
  var board = document.querySelector("[data-live]");
  if (!board || !window.EventSource || !window.fetch || !window.DOMParser) { return; }
  var status = document.createElement("p");
  status.className = "visually-hidden";
  status.setAttribute("role", "status");
  document.body.appendChild(status);
  var pending = false, again = false, lost = false;
  // refresh reads the board again; news that comes while it reads makes it
  // read once more after, and a failed read is tried again.
  function refresh() {
    if (pending) { again = true; return; }
    pending = true;
    setTimeout(function () {
      fetch(location.pathname + location.search, { credentials: "same-origin" }).then(function (r) {
        if (!r.ok) { throw new Error("status " + r.status); }
        return r.text();
      }).then(function (html) {
        show(new DOMParser().parseFromString(html, "text/html"));
        done(0);
      }).catch(function () { done(2000); });
    }, 150);
  }
  function done(wait) {
    pending = false;
    if (again || wait) { again = false; setTimeout(refresh, wait); }
  }
  function show(doc) {
    var fresh = doc.getElementById("board"), old = document.getElementById("board");
    if (!fresh || !old || fresh.getAttribute("data-version") === old.getAttribute("data-version")) { return; }
    var focused = document.activeElement && document.activeElement.id;
    var ticked = {};
    var boxes = old.querySelectorAll("input[type=checkbox]:checked");
    for (var i = 0; i < boxes.length; i++) { ticked[boxes[i].id] = true; }
    old.replaceWith(fresh);
    for (var id in ticked) {
      var b = document.getElementById(id);
      if (b && !b.closest("#standing")) { b.checked = true; }
    }
    limits(fresh);
    if (focused && document.getElementById(focused)) { document.getElementById(focused).focus(); }
    var last = fresh.querySelector(".log li:last-child");
    status.textContent = "The game moved on" + (last ? ": " + last.textContent.replace(/^\S+ \S+ /, "") : ".");
  }
  var stream = new EventSource(board.getAttribute("data-live"));
  stream.addEventListener("event", refresh);
  stream.addEventListener("error", function () { lost = true; });
  stream.addEventListener("open", function () { if (lost) { lost = false; refresh(); } });
})();
