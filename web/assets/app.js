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
})();
