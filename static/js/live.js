/* Live: the one client module of every live page — the King of the Hill host console, team
 * phone and projector, the GoRoD organizer screen, team phone and statistics, and (for
 * announcements) every other page of the site.
 *
 * It owns the socket, the stream's version, gap detection and the HTTP resync:
 *
 * - The server pushes {type: "<app>.state", version: N, state: S}, or {..., version: N,
 *   delta: D} where D patches state N - 1 into state N (core/delta.py; applied by patch below);
 *   a stream's version only grows. A delta that does not follow the state held is a gap.
 * - On (re)connect the game socket's FIRST message is the current state, so a reconnect costs
 *   exactly one state read (that message) and no HTTP request. A state too large for a socket
 *   message (live.messages.PUSH_LIMIT, 16 KiB: a 200-team organizer's) comes as {version: N,
 *   resync: true} instead, and the client reads it over HTTP if it holds an older one. Only if
 *   no state arrives within STATE_WAIT_MS after the socket opened does the client fetch GET
 *   stateUrl ({version, state}).
 * - After the first message a push must be version + 1. An older or equal version is a duplicate
 *   and ignored; a newer one is a gap (a push was lost): ONE HTTP read, however many pushes
 *   arrive while it runs (they are kept and applied after it if they are newer).
 * - A POST's {version, state} renders like a push (page.post below).
 * - While the socket is down #live-status says "reconnecting…" (its data-offline label); retries
 *   back off exponentially with jitter so a hall of phones does not reconnect in one burst.
 * - A "site.announce" message on any socket shows the banner #site-announcement (base.html).
 *   A page that opens no game socket opens /ws/site/ for the announcements.
 *
 *   var stream = Live.connect({path: "/ws/...", stateUrl: "/...", version: 3,
 *                              onState: function (state, version) { ... }});
 *   var page = new Live.Page({prefix: "koth", render: function (state) { ... }}); page.start();
 *
 * No rule lives here: the server's state says everything.
 */
(function (global) {
  "use strict";
  var doc = global.document;
  var STATE_WAIT_MS = 3000;
  var RETRY_BASE_MS = 500;
  var RETRY_MAX_MS = 10000;
  var streams = [];

  // ------------------------------------------------------------------ small helpers

  function readJson(id) {
    var node = doc.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  function cookie(name) {
    var match = doc.cookie.match(new RegExp("(?:^|; )" + name + "=([^;]*)"));
    return match ? decodeURIComponent(match[1]) : "";
  }

  // el("button", {type: "button", text: "OK", "class": "secondary", "data-key": k}, [children]):
  // "text" and "class" as textContent and className, keys with a "-" (data-*, aria-*) and keys the
  // element has no property for (for, colspan, role…) as attributes, the rest as properties
  // (type, checked, value, title, href…). Falsy children are skipped.
  function el(tag, attrs, children) {
    var node = doc.createElement(tag);
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

  /* Times of day in `timeZone` (settings.TIME_ZONE, given in a page's config), not the
   * device's: a phone set to another zone still reads the times the hall announces. An unknown
   * zone name gives the device's zone rather than nothing. */
  function timeIn(timeZone) {
    var clock = null;
    try {
      clock = new Intl.DateTimeFormat([], {hour: "2-digit", minute: "2-digit", second: "2-digit",
                                           hourCycle: "h23", timeZone: timeZone || undefined});
    } catch (e) { clock = null; }
    return function (iso) {
      if (!iso) { return ""; }
      return clock ? clock.format(new Date(iso)) : time(iso);
    };
  }

  /* The wait (ms) before reconnect attempt number `attempt` (0, 1, 2…): the exponential step
   * min(10 s, 0.5 s · 2^attempt), of which a random half is jitter. backoff(0, 0) = 250,
   * backoff(0, 1) = 500, backoff(3, 0.5) = 3000, backoff(9, 1) = 10000. */
  function backoff(attempt, random) {
    var step = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * Math.pow(2, attempt));
    var r = random == null ? Math.random() : random;
    return Math.round(step / 2 + r * step / 2);
  }

  // #live-status shows the label of its state from data-connecting / data-online / data-offline.
  function showStatus(status) {
    var node = doc.getElementById("live-status");
    if (!node) { return; }
    node.dataset.status = status;
    var label = node.dataset[status];
    if (label) { node.textContent = label; }
  }

  // ------------------------------------------------------------------ announcements

  var DISMISSED_KEY = "site-announcement:dismissed";

  function banner() { return doc.getElementById("site-announcement"); }

  function dismissed() {
    try { return global.localStorage.getItem(DISMISSED_KEY); } catch (e) { return null; }
  }

  /* Show {text, sent_at} in the banner (the newest replaces the one shown). The same text as the
   * one shown or dismissed is not shown again: a page that rendered an announcement on load
   * may then receive its push. */
  function announce(message) {
    var box = banner();
    if (!box || !message || !message.text) { return; }
    var text = String(message.text);
    if (text === box.dataset.text && (!box.hidden || dismissed() === text)) { return; }
    box.dataset.text = text;
    box.dataset.sentAt = message.sent_at || "";
    doc.getElementById("site-announcement-text").textContent = text;
    box.hidden = false;
  }

  function setUpBanner() {
    var box = banner();
    if (!box) { return; }
    if (box.dataset.text && dismissed() === box.dataset.text) { box.hidden = true; }
    var close = doc.getElementById("site-announcement-close");
    if (close) {
      close.addEventListener("click", function () {
        box.hidden = true;
        try { global.localStorage.setItem(DISMISSED_KEY, box.dataset.text || ""); }
        catch (e) { /* private mode: dismissed for this page only */ }
      });
    }
  }

  // ------------------------------------------------------------------ deltas

  /* Apply core/delta.py's patch to a state, leaving the old one as it was (the same rules as
   * its Python patch): {"=": v} replaces; {d, x} changes keys of an object and removes x;
   * {k, o, c} rebuilds a list of rows by their key k in the order o with the changed rows c;
   * {i, n} changes items of any other list, now n long. */
  function patch(old, change) {
    if (change == null) { return old; }
    if (Object.prototype.hasOwnProperty.call(change, "=")) { return change["="]; }
    var out;
    if (change.d) {
      out = {};
      var removed = change.x || [];
      Object.keys(old || {}).forEach(function (key) {
        if (removed.indexOf(key) < 0) { out[key] = old[key]; }
      });
      Object.keys(change.d).forEach(function (key) {
        out[key] = patch(old ? old[key] : undefined, change.d[key]);
      });
      return out;
    }
    if (change.k) {
      var before = {};
      (old || []).forEach(function (row) { before[String(row[change.k])] = row; });
      return change.o.map(function (id) { return patch(before[String(id)], change.c[String(id)]); });
    }
    out = (old || []).slice(0, change.n);
    while (out.length < change.n) { out.push(null); }
    Object.keys(change.i).forEach(function (index) {
      var i = Number(index);
      out[i] = patch(old ? old[i] : undefined, change.i[index]);
    });
    return out;
  }

  // ------------------------------------------------------------------ the stream

  function Stream(options) {
    this.path = options.path;
    this.stateUrl = options.stateUrl || null;
    this.onState = options.onState || function () {};
    this.onMessage = options.onMessage || function () {};
    this.version = options.version == null ? -1 : options.version;
    this.state = options.state === undefined ? null : options.state;  // what a delta patches
    this.attempt = 0;
    this.awaitingFirst = false;  // between open and the connection's first state
    this.firstTimer = null;
    this.resyncing = null;       // the running HTTP read, so a burst of gaps costs one
    this.held = [];              // the pushes that arrived during that read (a few)
    this.reads = 0;              // HTTP state reads so far (diagnostics and tests)
    this.closedByUs = false;
    streams.push(this);
    if (this.path) { this.connect(); }
  }

  Stream.prototype.url = function () {
    var scheme = global.location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + global.location.host + this.path;
  };

  Stream.prototype.connect = function () {
    var self = this;
    var socket = new global.WebSocket(this.url());
    this.socket = socket;
    socket.onopen = function () {
      showStatus("online");
      self.awaitingFirst = true;
      if (self.stateUrl) {
        self.firstTimer = global.setTimeout(function () {
          if (self.awaitingFirst && self.socket === socket) { self.awaitingFirst = false; self.resync(); }
        }, STATE_WAIT_MS);
      }
    };
    socket.onmessage = function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      self.attempt = 0;  // the server answers: the next outage starts its backoff afresh
      self.receive(message);
    };
    socket.onclose = function (event) {
      if (self.socket !== socket) { return; }
      self.awaitingFirst = false;
      global.clearTimeout(self.firstTimer);
      if (self.closedByUs) { return; }
      // 4403: the right to this stream is gone (binding revoked, logged out). Reconnecting
      // would be refused again; the page itself says what to do (join again, log in).
      if (event && event.code === 4403) { showStatus("offline"); global.location.reload(); return; }
      showStatus("offline");
      global.setTimeout(function () { self.connect(); }, backoff(self.attempt));
      self.attempt += 1;
    };
  };

  /* One message from the socket (also how tests push a state without a server). */
  Stream.prototype.receive = function (message) {
    if (!message) { return; }
    if (message.type === "site.announce") { announce(message); return; }
    if (message.resync && message.version != null) {
      // A state too large for a socket message (live.messages.PUSH_LIMIT): read it over HTTP.
      if (this.awaitingFirst) { this.awaitingFirst = false; global.clearTimeout(this.firstTimer); }
      if (message.version > this.version) { this.resync(); }
      return;
    }
    if (message.version == null || (message.state === undefined && message.delta === undefined)) {
      this.onMessage(message);
      return;
    }
    if (this.awaitingFirst) {  // the connection's first message is the whole current state
      this.awaitingFirst = false;
      global.clearTimeout(this.firstTimer);
      if (message.delta === undefined) { this.accept(message.version, message.state); return; }
    }
    if (message.version <= this.version) { return; }  // stale or duplicate
    if (this.resyncing) { this.hold(message); return; }
    if (!this.apply(message)) {
      this.hold(message);  // a gap: a push was lost on the way
      this.resync();
    }
  };

  /* Render a push if it follows what is held: a whole state that is newer (and, with an HTTP
   * read to fall back on, exactly the next version), or a delta from exactly this version. */
  Stream.prototype.apply = function (message) {
    var next = message.version === this.version + 1;
    if (message.delta !== undefined) {
      if (!next || this.state == null) { return false; }
      return this.accept(message.version, patch(this.state, message.delta));
    }
    if (this.stateUrl && this.version >= 0 && !next) { return false; }
    return this.accept(message.version, message.state);
  };

  Stream.prototype.hold = function (message) {
    this.held.push(message);
    if (this.held.length > 50) { this.held.shift(); }  // a resync far behind reads again
  };

  /* A whole state from anywhere (socket, HTTP, a POST's answer): rendered if it is newer. */
  Stream.prototype.accept = function (version, state) {
    if (version == null || version <= this.version) { return false; }
    this.version = version;
    this.state = state;
    this.onState(state, version);
    return true;
  };

  /* Read the state over HTTP once; pushes that arrive meanwhile wait and win if newer. */
  Stream.prototype.resync = function () {
    var self = this;
    if (!this.stateUrl) { return global.Promise.resolve(); }
    if (this.resyncing) { return this.resyncing; }
    this.reads += 1;
    this.resyncing = global.fetch(this.stateUrl, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) { if (body) { self.accept(body.version, body.state); } })
      .catch(function () { /* the next gap or reconnect tries again */ })
      .then(function () {
        self.resyncing = null;
        var held = self.held.sort(function (a, b) { return a.version - b.version; });
        self.held = [];
        // What arrived during the read and follows it; a delta that does not is dropped (the
        // read answered a newer state, or the next push shows the gap and reads again).
        held.forEach(function (message) {
          if (message.version <= self.version) { return; }
          if (message.delta === undefined) { self.accept(message.version, message.state); }
          else { self.apply(message); }
        });
      });
    return this.resyncing;
  };

  Stream.prototype.close = function () {
    this.closedByUs = true;
    if (this.socket) { this.socket.close(); }
  };

  function connect(options) { return new Stream(options); }

  // ------------------------------------------------------------------ the page

  /* The base of the live games' pages: the page's config, texts and initial state read from
   * <prefix>-config, <prefix>-text and <prefix>-state, a stream on config.ws / config.stateUrl,
   * an error box (<prefix>-error), and CSRF'd JSON posts whose {version, state} renders like a
   * push. An optional onBeforeRender(state) (an option, or a subclass's method) sees every
   * state just before render does. */
  function Page(options) {
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
    this.errorBox = doc.getElementById(prefix + "-error");
    var initial = readJson(prefix + "-state") || {version: -1, state: null};
    this.initial = initial.state;
    this.live = connect({
      path: this.config.ws, stateUrl: this.config.stateUrl, version: initial.version,
      state: initial.state, onState: function (state) { self.render(state); }
    });
  }

  Page.prototype.onBeforeRender = function () {};

  // Separate from the constructor: the page's render reads the page it was given.
  Page.prototype.start = function () { if (this.initial) { this.render(this.initial); } return this; };

  Page.prototype.showError = function (message) {
    if (!this.errorBox) { return; }
    this.errorBox.textContent = message || "";
    this.errorBox.hidden = !message;
  };

  // The message of a failed post: the API's "detail", else its field errors ("field: error").
  function errorDetail(data, status) {
    var detail = data.detail || Object.keys(data).map(function (k) { return k + ": " + data[k]; }).join("; ");
    return detail || ("HTTP " + status);
  }

  // Send JSON (or a FormData upload, as is) with the CSRF header; resolves to {ok, data,
  // detail} (detail: the refusal's message) or {ok: false, network: true}. Pages without a
  // stream (set-up cards) send through this too, so one place speaks to the API.
  function send(method, url, body) {
    var upload = global.FormData && body instanceof global.FormData;
    var headers = {"Accept": "application/json", "X-CSRFToken": cookie("csrftoken")};
    if (!upload) { headers["Content-Type"] = "application/json"; }
    return global.fetch(url, {
      method: method, credentials: "same-origin", headers: headers,
      body: upload ? body : (body === undefined && method !== "POST" ? undefined : JSON.stringify(body || {}))
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        data = data || {};
        if (!response.ok) { return {ok: false, data: data, detail: errorDetail(data, response.status)}; }
        return {ok: true, data: data};
      });
    }, function () { return {ok: false, network: true}; });
  }

  // POST with send; a returned {version, state} renders at once (the push that follows is then
  // a duplicate and ignored).
  Page.prototype.post = function (url, body) {
    var self = this;
    return send("POST", url, body).then(function (result) {
      if (result.network) { return result; }
      if (!result.ok) {
        self.showError(result.detail);
        return {ok: false, data: result.data, network: false};
      }
      self.showError("");
      if (result.data.version != null) { self.live.accept(result.data.version, result.data.state); }
      return {ok: true, data: result.data};
    });
  };

  // ------------------------------------------------------------------ boot

  // Live pages open their stream in their own DOMContentLoaded handlers, which run after this
  // one (this script comes first); the check waits for them, then a page without a stream opens
  // the site socket so announcements reach it too.
  doc.addEventListener("DOMContentLoaded", function () {
    setUpBanner();
    global.setTimeout(function () {
      if (!streams.length) {
        connect({path: "/ws/site/", onMessage: function (message) {
          if (message.type === "site.hello") { showStatus("online"); }
        }});
      }
    }, 0);
  });

  global.Live = {
    connect: connect, Page: Page, send: send, streams: streams, backoff: backoff, announce: announce, patch: patch,
    el: el, time: time, timeIn: timeIn, readJson: readJson, cookie: cookie, STATE_WAIT_MS: STATE_WAIT_MS
  };
})(window);
