/* The King of the Hill host console and team phone on the shared Live.Page (js/live.js):
 * the "koth-*" config, texts and state, plus the labels of the reasons a declaration or an
 * answer does not count. No rule lives here: the server's state says everything. */
(function (global) {
  "use strict";
  var Live = global.Live;

  function KothPage(render) {
    Live.Page.call(this, {prefix: "koth", render: render});
    this.reasons = Live.readJson("koth-reasons") || {};
    // the countdown counts from the server's clock, as the page was served
    if (global.KothCountdown) { global.KothCountdown.syncClock((Live.readJson("koth-state") || {}).server_time); }
  }
  KothPage.prototype = Object.create(Live.Page.prototype);
  KothPage.prototype.constructor = KothPage;

  KothPage.prototype.reason = function (code) { return this.reasons[code] || code || ""; };

  global.KothPage = KothPage;
  global.kothEl = Live.el;
  // times in the site's zone, which the hall reads, not the device's (Live.timeIn)
  global.kothTime = Live.timeIn((Live.readJson("koth-config") || {}).timeZone);
})(window);
