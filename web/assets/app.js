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

  // A move that loses something asks first (the page says what it costs
  // beside the button, for a browser without this script).
  document.addEventListener("submit", function (e) {
    var msg = e.target.getAttribute && e.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg + "\n\nDo it anyway?")) { e.preventDefault(); }
  }, true);

  // A page that waits for others (the lobby, a game before its start)
  // asks every few seconds whether what it shows changed, while it is
  // seen, and shows the new one in place; not while a field of it is
  // being filled in.
  var polled = document.querySelector("[data-poll]");
  if (polled && window.fetch && window.DOMParser) {
    var polling = false;
    setInterval(function () {
      if (polling || document.visibilityState === "hidden") { return; }
      var here = document.getElementById(polled.id);
      var a = document.activeElement;
      if (!here || (a && here.contains(a) && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName))) { return; }
      polling = true;
      fetch(here.getAttribute("data-poll"), { credentials: "same-origin", cache: "no-store" }).then(function (r) {
        return r.ok ? r.text() : null;
      }).then(function (token) {
        if (token === null || token === here.getAttribute("data-token")) { return null; }
        return fetch(location.pathname + location.search, { credentials: "same-origin" }).then(function (r) { return r.text(); });
      }).then(function (html) {
        if (!html) { return; }
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById(polled.id);
        if (!fresh) { location.reload(); return; } // the game started: its board follows it live
        here.replaceWith(fresh);
        document.title = doc.title;
        announce("This page changed: it shows the news.");
      }).catch(function () {}).then(function () { polling = false; });
    }, 5000);
  }
  var status = document.createElement("p");
  status.className = "visually-hidden";
  status.setAttribute("role", "status");
  document.body.appendChild(status);
  function announce(text) { status.textContent = text; }

  // The board follows its game: when the game's live stream says that
  // something happened, the board is read again and shown in place.
  var board = document.querySelector("[data-live]");
  if (!board || !window.EventSource || !window.fetch || !window.DOMParser) { return; }
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
    document.title = doc.title;
    if (focused && document.getElementById(focused)) { document.getElementById(focused).focus(); }
    var news = fresh.querySelector("#news li:last-child"), last = fresh.querySelector(".log li.newest");
    announce("The game moved on" + (news ? ": " + news.textContent :
      last ? ": " + last.textContent.replace(/^\S+ \S+ /, "") : "."));
  }
  // A message at the table comes on the same stream: the page is read
  // again and the talk's messages shown in place; its form, and what is
  // being written in it, stay as they are.
  var talking = false, talkAgain = false;
  function talk() {
    if (talking) { talkAgain = true; return; }
    talking = true;
    fetch(location.pathname + location.search, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) { throw new Error("status " + r.status); }
      return r.text();
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var fresh = doc.getElementById("talk-messages"), old = document.getElementById("talk-messages");
      if (!fresh || !old || fresh.getAttribute("data-last") === old.getAttribute("data-last")) { return; }
      old.replaceWith(fresh);
      var last = fresh.querySelector("li:last-child");
      var who = last && last.querySelector(".meta strong"), text = last && last.querySelector(".text");
      if (who && text) { announce("A message from " + who.textContent + ": " + text.textContent); }
    }).catch(function () {}).then(function () {
      talking = false;
      if (talkAgain) { talkAgain = false; talk(); }
    });
  }
  // The stream follows the board as shown: its last event, and the
  // messages since the page was drawn. A browser reconnects a stream that
  // ends, but gives up on one that a reconnection finds refused (a proxy
  // while the server restarts, a moment's outage): then a new one is
  // opened after a pause that doubles from 5 s to a minute.
  var stream, pause = 5000;
  function follow() {
    var now = document.querySelector("[data-live]"), shown = document.getElementById("talk-messages");
    var live = now && now.getAttribute("data-live");
    if (!live) { return; }
    if (shown) { live += "&last_message=" + shown.getAttribute("data-last"); }
    var s = stream = new EventSource(live);
    s.addEventListener("event", refresh);
    s.addEventListener("message", talk);
    s.addEventListener("error", function () {
      lost = true;
      if (s.readyState === EventSource.CLOSED && s === stream) { setTimeout(follow, pause); pause = Math.min(2 * pause, 60000); }
    });
    s.addEventListener("open", function () { pause = 5000; if (lost) { lost = false; refresh(); talk(); } });
  }
  follow();
  // A page left for another may be kept, frozen, to come back to: its
  // stream would hold one of the few connections a browser opens to a
  // site. It closes when the page is left, and a page shown again from
  // that cache is read again, live.
  window.addEventListener("pagehide", function () { if (stream) { stream.close(); } });
  window.addEventListener("pageshow", function (e) { if (e.persisted) { location.reload(); } });
})();
