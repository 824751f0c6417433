/* The King of the Hill host console and team phone on the shared LivePage (js/livepage.js):
 * the "koth-*" config, texts and state, plus the labels of the reasons a declaration or an
 * answer does not count. No rule lives here: the server's state says everything. */
(function (global) {
  "use strict";
  var LivePage = global.LivePage;

  function KothPage(render) {
    LivePage.call(this, {prefix: "koth", render: render});
    this.reasons = LivePage.readJson("koth-reasons") || {};
  }
  KothPage.prototype = Object.create(LivePage.prototype);
  KothPage.prototype.constructor = KothPage;

  KothPage.prototype.reason = function (code) { return this.reasons[code] || code || ""; };

  global.KothPage = KothPage;
  global.kothEl = LivePage.el;
  global.kothTime = LivePage.time;
})(window);
