/* LiveSocket: a reconnecting WebSocket for live screens (host, projector, team phones).
 *
 * The server pushes messages of the form {type, version, state}. The client keeps the last
 * version it rendered; when a pushed version is not exactly the next one (a gap), or after a
 * reconnect, it fetches the full state over HTTP (stateUrl) and carries on. So a lost message or
 * a flaky phone network never leaves a screen showing a stale board, and a reload loses nothing.
 */
(function (global) {
  "use strict";

  function LiveSocket(options) {
    this.path = options.path;
    this.stateUrl = options.stateUrl || null;
    this.onState = options.onState || function () {};
    this.onMessage = options.onMessage || function () {};
    this.onStatus = options.onStatus || function () {};
    this.version = options.version == null ? -1 : options.version;
    this.retryMs = 500;
    this.closedByUs = false;
    this.connect();
  }

  LiveSocket.prototype.url = function () {
    var scheme = global.location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + global.location.host + this.path;
  };

  LiveSocket.prototype.connect = function () {
    var self = this;
    var socket = new global.WebSocket(this.url());
    this.socket = socket;
    socket.onopen = function () {
      self.retryMs = 500;
      self.onStatus("online");
      if (self.stateUrl) { self.resync(); }
    };
    socket.onmessage = function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      if (message.version != null && message.state !== undefined) {
        self.receiveState(message);
      } else {
        self.onMessage(message);
      }
    };
    socket.onclose = function () {
      if (self.closedByUs) { return; }
      self.onStatus("offline");
      global.setTimeout(function () { self.connect(); }, self.retryMs);
      self.retryMs = Math.min(self.retryMs * 2, 10000);
    };
  };

  LiveSocket.prototype.receiveState = function (message) {
    if (message.version <= this.version) { return; }  // stale or duplicate
    if (this.stateUrl && this.version >= 0 && message.version !== this.version + 1) {
      this.resync();  // a gap: some update was missed
      return;
    }
    this.version = message.version;
    this.onState(message.state, message);
  };

  LiveSocket.prototype.resync = function () {
    var self = this;
    return global.fetch(this.stateUrl, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) {
        if (body && body.version != null && body.version >= self.version) {
          self.version = body.version;
          self.onState(body.state, body);
        }
      })
      .catch(function () { /* the next reconnect retries */ });
  };

  LiveSocket.prototype.close = function () {
    this.closedByUs = true;
    if (this.socket) { this.socket.close(); }
  };

  global.LiveSocket = LiveSocket;
})(window);
