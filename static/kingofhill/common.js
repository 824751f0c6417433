/* Shared bits of the King of the Hill host console and team phone: config, CSRF'd JSON posts,
 * and a LiveSocket wired so that a state returned by an action and a pushed state are handled
 * the same way (newest version wins). No rule lives here: the server's state says everything. */
(function (global) {
  "use strict";

  function readJson(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  function cookie(name) {
    var match = document.cookie.match(new RegExp("(?:^|; )" + name + "=([^;]*)"));
    return match ? decodeURIComponent(match[1]) : "";
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") { node.textContent = attrs[key]; }
      else if (key === "class") { node.className = attrs[key]; }
      else if (key.slice(0, 5) === "data-") { node.setAttribute(key, attrs[key]); }
      else { node[key] = attrs[key]; }
    });
    (children || []).forEach(function (child) { if (child) { node.appendChild(child); } });
    return node;
  }

  function time(iso) {
    if (!iso) { return ""; }
    var d = new Date(iso);
    return d.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit"});
  }

  function KothPage(render) {
    var self = this;
    this.config = readJson("koth-config");
    this.text = readJson("koth-text") || {};
    this.reasons = readJson("koth-reasons") || {};
    this.render = render;
    this.errorBox = document.getElementById("koth-error");
    var initial = readJson("koth-state");
    var status = document.getElementById("live-status");
    this.live = new global.LiveSocket({
      path: this.config.ws,
      stateUrl: this.config.stateUrl,
      version: initial.version,
      onState: function (state) { self.render(state); },
      onStatus: function (s) {
        if (!status) { return; }
        status.dataset.status = s;
        status.textContent = status.dataset[s] || s;
      }
    });
    this.initial = initial.state;
  }

  // Separate from the constructor: the page's render reads the KothPage it was given.
  KothPage.prototype.start = function () { this.render(this.initial); return this; };

  KothPage.prototype.reason = function (code) { return this.reasons[code] || code || ""; };

  KothPage.prototype.showError = function (message) {
    if (!this.errorBox) { return; }
    this.errorBox.textContent = message || "";
    this.errorBox.hidden = !message;
  };

  // POST JSON with the CSRF header; a returned {version, state} renders at once (the push
  // that follows is then a duplicate and ignored).
  KothPage.prototype.post = function (url, body) {
    var self = this;
    return global.fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "Accept": "application/json",
                "X-CSRFToken": cookie("csrftoken")},
      body: JSON.stringify(body || {})
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          self.showError(data.detail || ("HTTP " + response.status));
          return {ok: false, data: data, network: false};
        }
        self.showError("");
        if (data.version != null && data.version >= self.live.version) {
          self.live.version = data.version;
          self.render(data.state);
        }
        return {ok: true, data: data};
      });
    }, function () { return {ok: false, network: true}; });
  };

  global.KothPage = KothPage;
  global.kothEl = el;
  global.kothTime = time;
})(window);
