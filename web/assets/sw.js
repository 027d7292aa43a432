// Data Monsters service worker: shows the pushes the server sends to this
// browser (Web Push, RFC 8030) as notifications, and opens the game's
// board when one is clicked. A push carries JSON: {title, body, url, tag,
// kind, game_id}. It is registered by the page of the push settings
// (push.js) and does nothing else: no page is cached or served from here.
"use strict";

self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = { body: event.data ? event.data.text() : "" };
  }
  var options = { body: data.body || "", data: { url: data.url || "/" } };
  if (data.tag) {
    options.tag = data.tag; // one notification per game: a newer one replaces it
    options.renotify = true; // and still alerts
  }
  event.waitUntil(self.registration.showNotification(data.title || "Data Monsters", options));
});

// sameOrigin is url if it is an address of this site, else the home page:
// a notification opens nothing elsewhere.
function sameOrigin(url) {
  try {
    var u = new URL(url, self.location.origin);
    return u.origin === self.location.origin ? u.href : self.location.origin + "/";
  } catch (e) {
    return self.location.origin + "/";
  }
}

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = sameOrigin(event.notification.data && event.notification.data.url);
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
    for (var i = 0; i < windows.length; i++) {
      if (windows[i].url === url && "focus" in windows[i]) {
        return windows[i].focus();
      }
    }
    return self.clients.openWindow(url);
  }));
});

// The browser renewed the subscription: give the server the new one (the
// old one's push service answers 410 from now on, and the server forgets it).
self.addEventListener("pushsubscriptionchange", function (event) {
  var old = event.oldSubscription;
  var renew = event.newSubscription ? Promise.resolve(event.newSubscription) :
    self.registration.pushManager.subscribe(old ? old.options : { userVisibleOnly: true });
  event.waitUntil(renew.then(function (sub) {
    var keys = sub.toJSON().keys || {};
    return fetch("/settings/push", {
      method: "POST", credentials: "same-origin",
      body: new URLSearchParams({ endpoint: sub.endpoint, p256dh: keys.p256dh || "", auth: keys.auth || "" })
    });
  }));
});
