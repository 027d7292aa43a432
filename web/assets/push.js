// Data Monsters: the push settings page turns Web Push on and off in this
// browser. It registers the service worker (sw.js), asks the browser's
// permission to show notifications, subscribes with the server's VAPID
// key and hands the subscription to the server (a form post to
// /settings/push); off, it unsubscribes and tells the server. The list of
// browsers on the page works without this script.
(function () {
  "use strict";
  var root = document.getElementById("push");
  if (!root) { return; }
  var state = document.getElementById("push-state");
  var onRow = document.getElementById("push-on-row"), offRow = document.getElementById("push-off-row");
  var key = root.getAttribute("data-key"), worker = root.getAttribute("data-worker");
  function say(text) { state.textContent = text; }
  function show(on) { onRow.hidden = on; offRow.hidden = !on; }

  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    say("This browser cannot receive push notifications.");
    return;
  }
  // The server's key, as PushManager.subscribe takes it.
  function keyBytes(b64) {
    var s = (b64 + "===".slice((b64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(s), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }
  function sameKey(sub) {
    var k = sub.options && sub.options.applicationServerKey;
    if (!k) { return true; }
    var a = new Uint8Array(k), b = keyBytes(key);
    if (a.length !== b.length) { return false; }
    for (var i = 0; i < a.length; i++) { if (a[i] !== b[i]) { return false; } }
    return true;
  }
  // The endpoints the server pushes to, from the page's list.
  function known(endpoint) {
    var items = document.querySelectorAll("[data-endpoint]");
    for (var i = 0; i < items.length; i++) {
      if (items[i].getAttribute("data-endpoint") === endpoint) { return items[i]; }
    }
    return null;
  }
  function post(path, fields) {
    return fetch(path, { method: "POST", credentials: "same-origin", body: new URLSearchParams(fields) }).then(function (r) {
      if (!r.ok) { throw new Error("the server answered " + r.status); }
      window.location.assign(r.url);
    });
  }
  function failed(what) {
    return function (e) { say(what + " (" + (e && e.message ? e.message : e) + ")."); };
  }

  // The registration, once its worker is active (serviceWorker.ready would
  // wait for a worker of this page's scope: the push worker's is /assets/).
  var ready = navigator.serviceWorker.register(worker, { scope: root.getAttribute("data-scope") }).then(function (reg) {
    return new Promise(function (resolve, reject) {
      function check() {
        if (reg.active) { resolve(reg); return true; }
        var w = reg.installing || reg.waiting;
        if (!w) { reject(new Error("no service worker")); return true; }
        w.addEventListener("statechange", function () {
          if (w.state === "redundant") { reject(new Error("the service worker did not install")); } else { check(); }
        }, { once: true });
        return false;
      }
      check();
    });
  });
  ready.then(function (reg) { return reg.pushManager.getSubscription(); }).then(function (sub) {
    var item = sub && known(sub.endpoint);
    if (item && sameKey(sub)) {
      (item.querySelector("span") || item).appendChild(document.createTextNode(" (this browser)"));
      say(Notification.permission === "granted" ? "This browser receives your push notifications." :
        "Push notifications are on, but this browser blocks notifications from this site: allow them in its site settings.");
      show(true);
    } else {
      say(Notification.permission === "denied" ? "This browser blocks notifications from this site: allow them in its site settings, then turn push on." :
        "Push notifications are off in this browser.");
      show(false);
    }
  }, failed("This browser could not start the service worker of push notifications"));

  document.getElementById("push-on").addEventListener("click", function () {
    say("Asking this browser for permission…");
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") {
        throw new Error("notifications are not allowed for this site");
      }
      say("Subscribing…");
      return ready;
    }).then(function (reg) {
      return reg.pushManager.getSubscription().then(function (old) {
        // A subscription made with another key (the server's changed) is
        // of no use: make a new one.
        return old && !sameKey(old) ? old.unsubscribe() : null;
      }).then(function () {
        return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
      });
    }).then(function (sub) {
      var keys = sub.toJSON().keys || {};
      return post("/settings/push", { endpoint: sub.endpoint, p256dh: keys.p256dh || "", auth: keys.auth || "" });
    }).catch(failed("Push notifications could not be turned on"));
  });

  document.getElementById("push-off").addEventListener("click", function () {
    ready.then(function (reg) { return reg.pushManager.getSubscription(); }).then(function (sub) {
      if (!sub) { return post("/settings/push/off", { endpoint: "" }); }
      var endpoint = sub.endpoint;
      return sub.unsubscribe().then(function () { return post("/settings/push/off", { endpoint: endpoint }); });
    }).catch(failed("Push notifications could not be turned off"));
  });
}());
