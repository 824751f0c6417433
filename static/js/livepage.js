/* LivePage: the shared base of the live games' pages (King of the Hill host console and team
 * phone, GoRoD organizer screen, team phone and statistics): the page's config, texts and initial
 * state read from <prefix>-config, <prefix>-text and <prefix>-state, a LiveSocket (js/live.js)
 * with the #live-status element, an error box (<prefix>-error), and CSRF'd JSON posts whose
 * returned {version, state} renders the same way as a pushed state (newest version wins). No rule
 * lives here: the server's state says everything.
 *
 *   var page = new LivePage({prefix: "koth", render: function (state) { ... }});
 *   page.start();
 *
 * An optional onBeforeRender(state) (an option, or a method of a subclass) sees every state
 * just before render does. Helpers: LivePage.el, LivePage.time, LivePage.readJson. */
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

  // el("button", {type: "button", text: "OK", "class": "secondary", "data-key": k}, [children]):
  // "text" and "class" as textContent and className, keys with a "-" (data-*, aria-*) and keys the
  // element has no property for (for, colspan, role…) as attributes, the rest as properties
  // (type, checked, value, title, href…). Falsy children are skipped.
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (key === "text") { node.textContent = value; }
      else if (key === "class") { node.className = value; }
      else if (key.indexOf("-") >= 0 || !(key in node)) { node.setAttribute(key, value); }
      else { node[key] = value; }
    });
    (children || []).forEach(function (child) { if (child) { node.appendChild(child); } });
    return node;
  }

  function time(iso) {
    if (!iso) { return ""; }
    return new Date(iso).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit"});
  }

  function LivePage(options) {
    var self = this;
    var prefix = options.prefix;
    var render = options.render;
    if (options.onBeforeRender) { this.onBeforeRender = options.onBeforeRender; }
    this.prefix = prefix;
    this.config = readJson(prefix + "-config");
    this.text = readJson(prefix + "-text") || {};
    this.render = function (state) {
      self.onBeforeRender(state);
      render(state);
    };
    this.errorBox = document.getElementById(prefix + "-error");
    var initial = readJson(prefix + "-state");
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

  LivePage.prototype.onBeforeRender = function () {};

  // Separate from the constructor: the page's render reads the page it was given.
  LivePage.prototype.start = function () { this.render(this.initial); return this; };

  LivePage.prototype.showError = function (message) {
    if (!this.errorBox) { return; }
    this.errorBox.textContent = message || "";
    this.errorBox.hidden = !message;
  };

  // The message of a failed post: the API's "detail", else its field errors ("field: error").
  function errorDetail(data, status) {
    var detail = data.detail || Object.keys(data).map(function (k) { return k + ": " + data[k]; }).join("; ");
    return detail || ("HTTP " + status);
  }

  // POST JSON with the CSRF header; a returned {version, state} renders at once (the push
  // that follows is then a duplicate and ignored).
  LivePage.prototype.post = function (url, body) {
    var self = this;
    return global.fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "Accept": "application/json",
                "X-CSRFToken": cookie("csrftoken")},
      body: JSON.stringify(body || {})
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          self.showError(errorDetail(data || {}, response.status));
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

  LivePage.el = el;
  LivePage.time = time;
  LivePage.readJson = readJson;
  global.LivePage = LivePage;
})(window);
